import FoundationEssentials

/// An external purchase token, sent with `EXTERNAL_PURCHASE_TOKEN` notifications.
///
/// [externalPurchaseToken](https://developer.apple.com/documentation/appstoreservernotifications/externalpurchasetoken)
public struct ExternalPurchaseToken: Codable, Sendable, Equatable, Hashable {
    /// The unique identifier of the token.
    public var externalPurchaseId: String?
    /// When the system created the token, in milliseconds since 1970.
    public var tokenCreationDate: Int64?
    public var appAppleId: Int64?
    public var bundleId: String?
    /// When a custom link token expires, in milliseconds since 1970.
    public var tokenExpirationDate: Int64?
    /// The wire value of `tokenType` (custom link tokens only).
    public var rawTokenType: String?

    public init(
        externalPurchaseId: String? = nil,
        tokenCreationDate: Int64? = nil,
        appAppleId: Int64? = nil,
        bundleId: String? = nil,
        tokenExpirationDate: Int64? = nil,
        rawTokenType: String? = nil
    ) {
        self.externalPurchaseId = externalPurchaseId
        self.tokenCreationDate = tokenCreationDate
        self.appAppleId = appAppleId
        self.bundleId = bundleId
        self.tokenExpirationDate = tokenExpirationDate
        self.rawTokenType = rawTokenType
    }

    public var tokenType: ExternalPurchaseTokenType? {
        get { rawTokenType.flatMap(ExternalPurchaseTokenType.init(rawValue:)) }
        set { rawTokenType = newValue?.rawValue }
    }

    public var tokenCreationDateValue: Date? {
        get { AppStoreMilliseconds.date(tokenCreationDate) }
        set { tokenCreationDate = AppStoreMilliseconds.milliseconds(newValue) }
    }

    public var tokenExpirationDateValue: Date? {
        get { AppStoreMilliseconds.date(tokenExpirationDate) }
        set { tokenExpirationDate = AppStoreMilliseconds.milliseconds(newValue) }
    }

    enum CodingKeys: String, CodingKey {
        case externalPurchaseId
        case tokenCreationDate
        case appAppleId
        case bundleId
        case tokenExpirationDate
        case rawTokenType = "tokenType"
    }
}
