import FoundationEssentials

/// The decoded payload of a version 2 notification (the JWS payload of `signedPayload`).
///
/// At most one of `data`, `summary`, `externalPurchaseToken` and `appData` is present.
/// Wire enums are stored raw (`rawNotificationType`, `rawSubtype`) so a value Apple adds
/// later still decodes; the typed accessors return `nil` for such values.
///
/// [responseBodyV2DecodedPayload](https://developer.apple.com/documentation/appstoreservernotifications/responsebodyv2decodedpayload)
public struct ResponseBodyV2DecodedPayload: Codable, Sendable, Equatable, Hashable {
    /// The wire value of `notificationType`, kept as Apple sent it.
    public var rawNotificationType: String?
    /// The wire value of `subtype`, kept as Apple sent it.
    public var rawSubtype: String?
    /// A unique identifier for the notification; the key for deduplication.
    public var notificationUUID: String?
    /// The notification version; `"2.0"`.
    public var version: String?
    /// When the App Store signed the notification, in milliseconds since 1970.
    public var signedDate: Int64?
    /// App metadata and signed transaction and renewal information.
    public var data: NotificationData?
    /// The result of a mass renewal-date extension (`RENEWAL_EXTENSION` / `SUMMARY`).
    public var summary: Summary?
    /// An external purchase token (`EXTERNAL_PURCHASE_TOKEN`).
    public var externalPurchaseToken: ExternalPurchaseToken?
    /// App metadata and a signed app transaction (for example `RESCIND_CONSENT`).
    public var appData: AppData?

    public init(
        rawNotificationType: String? = nil,
        rawSubtype: String? = nil,
        notificationUUID: String? = nil,
        version: String? = nil,
        signedDate: Int64? = nil,
        data: NotificationData? = nil,
        summary: Summary? = nil,
        externalPurchaseToken: ExternalPurchaseToken? = nil,
        appData: AppData? = nil
    ) {
        self.rawNotificationType = rawNotificationType
        self.rawSubtype = rawSubtype
        self.notificationUUID = notificationUUID
        self.version = version
        self.signedDate = signedDate
        self.data = data
        self.summary = summary
        self.externalPurchaseToken = externalPurchaseToken
        self.appData = appData
    }

    /// The event this notification reports; `nil` when absent or not a known value.
    public var notificationType: NotificationTypeV2? {
        get { rawNotificationType.flatMap(NotificationTypeV2.init(rawValue:)) }
        set { rawNotificationType = newValue?.rawValue }
    }

    /// Further detail about the event; `nil` when absent or not a known value.
    public var subtype: Subtype? {
        get { rawSubtype.flatMap(Subtype.init(rawValue:)) }
        set { rawSubtype = newValue?.rawValue }
    }

    /// `signedDate` as a `Date`.
    public var signedDateValue: Date? {
        get { AppStoreMilliseconds.date(signedDate) }
        set { signedDate = AppStoreMilliseconds.milliseconds(newValue) }
    }

    enum CodingKeys: String, CodingKey {
        case rawNotificationType = "notificationType"
        case rawSubtype = "subtype"
        case notificationUUID
        case version
        case signedDate
        case data
        case summary
        case externalPurchaseToken
        case appData
    }
}
