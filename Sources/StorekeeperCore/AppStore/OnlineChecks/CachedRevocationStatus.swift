import FoundationEssentials

/// The last OCSP answer for one certificate, as kept in the store so a function that runs
/// once per request does not ask the responder every time.
struct CachedRevocationStatus: Codable {
    enum Status: String, Codable {
        case good
        case revoked
    }

    var status: Status
    /// When the answer was obtained, milliseconds since 1970.
    var checkedAt: Int64
    /// Until when the answer is current (the response's nextUpdate, at most 24 hours).
    var freshUntil: Int64
}
