import FoundationEssentials

/// A proven `x5c` chain as the store keeps it, so the next process verifying data signed
/// with the same chain needs no certificate parsing and no chain validation: just the
/// leaf's key and the window in which the chain is valid.
///
/// The store is trusted like the rest of Storekeeper's state: whoever can write it can
/// already grant entitlements.
struct CachedChain: Codable {
    /// The leaf's SubjectPublicKeyInfo, DER, base64.
    var leafKey: String
    /// Milliseconds since 1970: every certificate of the chain is valid in [validFrom, validUntil].
    var validFrom: Int64
    var validUntil: Int64
    /// With online checks: until when the revocation status is known good.
    var revocationFreshUntil: Int64?

    /// How long a proven chain is remembered.
    static let lifetime: Duration = .seconds(24 * 3600)
}
