import FoundationEssentials

/// The claims of a Sign in with Apple identity token, normalised.
/// https://developer.apple.com/documentation/signinwithapple/authenticating-users-with-sign-in-with-apple
///
/// Older tokens carry `email_verified` and `is_private_email` as the strings "true" and
/// "false", newer ones as booleans: both decode to `Bool`. `aud` is one string in Apple's
/// tokens; an array is accepted too (RFC 7519 §4.1.3). Times are seconds since 1970.
public struct IdentityTokenClaims: Codable, Sendable, Equatable {
    public var iss: String
    public var sub: String
    public var aud: [String]
    public var exp: Int64
    public var iat: Int64
    public var nonce: String?
    public var nonceSupported: Bool?
    public var email: String?
    public var emailVerified: Bool?
    public var isPrivateEmail: Bool?
    /// 0 unsupported, 1 unknown, 2 likely real; see `realUserStatusValue`.
    public var realUserStatus: Int?
    /// Present after an app transfer between teams: the user's id under the old team.
    public var transferSub: String?
    public var authTime: Int64?

    public var realUserStatusValue: RealUserStatus? { realUserStatus.flatMap(RealUserStatus.init(rawValue:)) }

    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, exp, iat, nonce, email
        case nonceSupported = "nonce_supported"
        case emailVerified = "email_verified"
        case isPrivateEmail = "is_private_email"
        case realUserStatus = "real_user_status"
        case transferSub = "transfer_sub"
        case authTime = "auth_time"
    }

    public init(iss: String, sub: String, aud: [String], exp: Int64, iat: Int64, nonce: String? = nil,
                email: String? = nil, emailVerified: Bool? = nil, isPrivateEmail: Bool? = nil,
                realUserStatus: Int? = nil, transferSub: String? = nil) {
        self.iss = iss
        self.sub = sub
        self.aud = aud
        self.exp = exp
        self.iat = iat
        self.nonce = nonce
        self.email = email
        self.emailVerified = emailVerified
        self.isPrivateEmail = isPrivateEmail
        self.realUserStatus = realUserStatus
        self.transferSub = transferSub
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        iss = try container.decode(String.self, forKey: .iss)
        sub = try container.decode(String.self, forKey: .sub)
        if let one = try? container.decode(String.self, forKey: .aud) {
            aud = [one]
        } else {
            aud = try container.decode([String].self, forKey: .aud)
        }
        exp = try Self.seconds(container, .exp)
        iat = try Self.seconds(container, .iat)
        nonce = try container.decodeIfPresent(String.self, forKey: .nonce)
        nonceSupported = try Self.flexibleBool(container, .nonceSupported)
        email = try container.decodeIfPresent(String.self, forKey: .email)
        emailVerified = try Self.flexibleBool(container, .emailVerified)
        isPrivateEmail = try Self.flexibleBool(container, .isPrivateEmail)
        realUserStatus = try container.decodeIfPresent(Int.self, forKey: .realUserStatus)
        transferSub = try container.decodeIfPresent(String.self, forKey: .transferSub)
        authTime = try? Self.seconds(container, .authTime)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(iss, forKey: .iss)
        try container.encode(sub, forKey: .sub)
        if aud.count == 1 { try container.encode(aud[0], forKey: .aud) } else { try container.encode(aud, forKey: .aud) }
        try container.encode(exp, forKey: .exp)
        try container.encode(iat, forKey: .iat)
        try container.encodeIfPresent(nonce, forKey: .nonce)
        try container.encodeIfPresent(nonceSupported, forKey: .nonceSupported)
        try container.encodeIfPresent(email, forKey: .email)
        try container.encodeIfPresent(emailVerified, forKey: .emailVerified)
        try container.encodeIfPresent(isPrivateEmail, forKey: .isPrivateEmail)
        try container.encodeIfPresent(realUserStatus, forKey: .realUserStatus)
        try container.encodeIfPresent(transferSub, forKey: .transferSub)
        try container.encodeIfPresent(authTime, forKey: .authTime)
    }

    /// A boolean sent as a JSON boolean or as the string "true"/"false".
    static func flexibleBool<Key: CodingKey>(_ container: KeyedDecodingContainer<Key>, _ key: Key) throws -> Bool? {
        guard container.contains(key), !(try container.decodeNil(forKey: key)) else { return nil }
        if let value = try? container.decode(Bool.self, forKey: key) { return value }
        switch try container.decode(String.self, forKey: key).lowercased() {
        case "true": return true
        case "false": return false
        default:
            throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "not a boolean")
        }
    }

    /// NumericDate (RFC 7519 §2): seconds, possibly with a fraction, truncated.
    static func seconds<Key: CodingKey>(_ container: KeyedDecodingContainer<Key>, _ key: Key) throws -> Int64 {
        if let whole = try? container.decode(Int64.self, forKey: key) { return whole }
        let value = try container.decode(Double.self, forKey: key)
        guard value.isFinite, let whole = Int64(exactly: value.rounded(.down)) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "not a time")
        }
        return whole
    }
}
