import FoundationEssentials

/// A server-to-server notification from Apple about a user's account: a JWT whose `events`
/// claim is itself a JSON document carried as a string.
/// https://developer.apple.com/documentation/sign_in_with_apple/processing_changes_for_sign_in_with_apple_accounts
public struct AppleIDNotification: Sendable {
    public let iss: String
    public let aud: [String]
    public let iat: Int64
    public let exp: Int64?
    /// Unique per notification: the deduplication key.
    public let jti: String
    public let event: AppleIDEvent

    struct Claims: Decodable {
        let iss: String
        let aud: JSONValue
        let jti: String
        let events: JSONValue
    }

    init(payload: [UInt8]) throws {
        let decoder = JSONDecoder()
        let claims = try decoder.decode(Claims.self, from: Data(payload))
        struct Times: Decodable {
            let iat: Int64
            let exp: Int64?
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: IdentityTokenClaims.CodingKeys.self)
                iat = try IdentityTokenClaims.seconds(container, .iat)
                exp = container.contains(.exp) ? try IdentityTokenClaims.seconds(container, .exp) : nil
            }
        }
        let times = try decoder.decode(Times.self, from: Data(payload))
        iss = claims.iss
        switch claims.aud {
        case .string(let one): aud = [one]
        case .array(let many): aud = many.compactMap(\.stringValue)
        default: throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "aud"))
        }
        iat = times.iat
        exp = times.exp
        jti = claims.jti
        // Apple sends `events` as a JSON string; an object is accepted too.
        switch claims.events {
        case .string(let text): event = try decoder.decode(AppleIDEvent.self, from: Data(text.utf8))
        case .object: event = try decoder.decode(AppleIDEvent.self, from: try JSONEncoder().encode(claims.events))
        default: throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "events"))
        }
    }
}

/// One account event. `type` keeps Apple's spelling; `typeValue` is nil for a type this
/// version does not know, which is acknowledged and ignored rather than refused.
public struct AppleIDEvent: Codable, Sendable, Equatable {
    public enum EventType: String, Sendable, CaseIterable {
        case emailDisabled = "email-disabled"
        case emailEnabled = "email-enabled"
        case consentRevoked = "consent-revoked"
        /// Both spellings occur in Apple's documentation and traffic.
        case accountDelete = "account-delete"
        case accountDeleted = "account-deleted"
    }

    public var type: String
    public var sub: String
    public var email: String?
    public var isPrivateEmail: Bool?
    /// Milliseconds since 1970.
    public var eventTime: Int64?

    public var typeValue: EventType? { EventType(rawValue: type) }

    enum CodingKeys: String, CodingKey {
        case type, sub, email
        case isPrivateEmail = "is_private_email"
        case eventTime = "event_time"
    }

    public init(type: String, sub: String, email: String? = nil, isPrivateEmail: Bool? = nil, eventTime: Int64? = nil) {
        self.type = type
        self.sub = sub
        self.email = email
        self.isPrivateEmail = isPrivateEmail
        self.eventTime = eventTime
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        type = try container.decode(String.self, forKey: .type)
        sub = try container.decode(String.self, forKey: .sub)
        email = try container.decodeIfPresent(String.self, forKey: .email)
        isPrivateEmail = try IdentityTokenClaims.flexibleBool(container, .isPrivateEmail)
        eventTime = container.contains(.eventTime) ? try IdentityTokenClaims.seconds(container, .eventTime) : nil
    }
}
