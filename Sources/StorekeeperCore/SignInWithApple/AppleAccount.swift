import FoundationEssentials

/// A user who signed in with Apple, as kept in the store (`user:<userId>:account`).
///
/// Everything personal lives in this one record (email, name), so deleting an account
/// deletes it whole; what must outlive the account (purchases, the appAccountToken mapping)
/// lives under other keys.
public struct AppleAccount: StoreRecord, Sendable, Equatable {
    public var userId: String
    /// Apple's stable user id for this team (`sub`).
    public var sub: String
    /// The UUID handed to the app for StoreKit purchases; links purchases to this user.
    public var appAccountToken: String
    public var email: String?
    public var emailVerified: Bool?
    public var isPrivateEmail: Bool?
    /// False after an `email-disabled` event: mail to the private relay address is not forwarded.
    public var emailRelayEnabled: Bool?
    /// The `event_time` (ms) of the email event last applied: an older one, arriving late or
    /// replayed, does not undo it. Nil in records from before it was kept, and until the first
    /// email event: then any event from after the account's creation applies.
    public var emailEventTime: Int64?
    /// From the first-login `user` JSON (web) or the app's `fullName` (native): Apple sends it once.
    public var givenName: String?
    public var familyName: String?
    public var realUserStatus: Int?
    public var transferSub: String?
    /// Milliseconds since 1970.
    public var createdAt: Int64
    public var lastSignInAt: Int64

    public init(userId: String, sub: String, appAccountToken: String, createdAt: Int64) {
        self.userId = userId
        self.sub = sub
        self.appAccountToken = appAccountToken
        self.createdAt = createdAt
        self.lastSignInAt = createdAt
    }
}

/// The name from Apple's first-login `user` form field (`{"name": {"firstName", "lastName"},
/// "email"}`) or a native app's `fullName` (`{"givenName", "familyName"}`).
public struct FirstLoginName: Sendable, Equatable {
    public var givenName: String?
    public var familyName: String?

    public init(givenName: String?, familyName: String?) {
        self.givenName = givenName
        self.familyName = familyName
    }

    /// Parses the web callback's `user` field; nil when it holds no name.
    public static func parsingUserField(_ json: String) -> FirstLoginName? {
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(json.utf8)),
              let name = value["name"] else { return nil }
        let parsed = FirstLoginName(givenName: name["firstName"]?.stringValue, familyName: name["lastName"]?.stringValue)
        return parsed.givenName == nil && parsed.familyName == nil ? nil : parsed
    }
}
