import FoundationEssentials

/// A notification as `receive-notification` keeps it: what Apple said, already verified, so
/// the worker never needs the network or the trust store to apply it.
///
/// Stored as JSON whose `payload`, `transactionInfo`, `renewalInfo` and `appTransactionInfo`
/// are Apple's verified JSON values, every field kept (see `encoded`), so nothing Apple sends
/// is lost even when Storekeeper's models do not know a field yet.
public struct StoredNotification: Decodable, Sendable {
    public var notificationUUID: String
    public var notificationType: String?
    public var subtype: String?
    public var signedDate: Int64
    public var environment: String
    /// When it reached Storekeeper, milliseconds since 1970.
    public var receivedAt: Int64
    /// How it arrived.
    public var via: NotificationArrival
    public var transactionInfo: JWSTransactionDecodedPayload?
    public var renewalInfo: JWSRenewalInfoDecodedPayload?
    // `appTransactionInfo` (a notification about the app, such as RESCIND_CONSENT) is kept in
    // the stored JSON for audit and for what is built on it, but not decoded here: the worker
    // applies nothing from it, so it cannot make a notification fail.

    /// The stored form, splicing the verified JSON in unchanged.
    static func encoded(_ verified: VerifiedSignedData, claims: NotificationClaims, receivedAt: Int64, via: NotificationArrival) -> [UInt8] {
        var builder = JSONObjectBuilder()
        builder.add("notificationUUID", claims.notificationUUID)
        if let type = claims.notificationType { builder.add("notificationType", type) }
        if let subtype = claims.subtype { builder.add("subtype", subtype) }
        builder.add("signedDate", rawJSON: Array(String(claims.signedDate).utf8))
        builder.add("environment", verified.environment.rawValue)
        builder.add("receivedAt", rawJSON: Array(String(receivedAt).utf8))
        builder.add("via", via.rawValue)
        builder.add("payload", rawJSON: verified.payload)
        if let transactionInfo = verified.transactionInfo { builder.add("transactionInfo", rawJSON: transactionInfo) }
        if let renewalInfo = verified.renewalInfo { builder.add("renewalInfo", rawJSON: renewalInfo) }
        if let appTransactionInfo = verified.appTransactionInfo { builder.add("appTransactionInfo", rawJSON: appTransactionInfo) }
        return builder.build()
    }

    /// The event the entitlement engine applies.
    public var event: EntitlementEvent {
        EntitlementEvent(id: notificationUUID, source: .notification, type: notificationType, subtype: subtype,
                         signedDate: signedDate, transaction: transactionInfo, renewalInfo: renewalInfo)
    }
}

/// The top-level fields of a verified notification payload that routing needs.
struct NotificationClaims: Decodable {
    var notificationUUID: String
    var notificationType: String?
    var subtype: String?
    var signedDate: Int64
}
