/// The JOSE header fields Storekeeper reads or writes (RFC 7515 §4.1).
///
/// Unknown header parameters are ignored when reading; `crit` is kept so a verifier can
/// refuse extensions it does not understand.
public struct JOSEHeader: Codable, Sendable, Equatable {
    /// The signing algorithm, e.g. "ES256" or "RS256". Checked before anything else.
    public var alg: String
    public var kid: String?
    public var typ: String?
    /// Certificate chain, each entry standard base64 (not base64url) DER, leaf first.
    public var x5c: [String]?
    public var crit: [String]?

    public init(alg: String, kid: String? = nil, typ: String? = nil, x5c: [String]? = nil) {
        self.alg = alg
        self.kid = kid
        self.typ = typ
        self.x5c = x5c
        self.crit = nil
    }
}
