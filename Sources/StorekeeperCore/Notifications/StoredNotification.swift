import FoundationEssentials

/// A notification as `receive-notification` keeps it: what Apple said, already verified, so
/// the worker never needs the network or the trust store to apply it.
///
/// Stored as JSON whose `payload`, `transactionInfo`, `renewalInfo` and `appTransactionInfo`
/// are Apple's verified JSON values, every field kept (see `encoded`), so nothing Apple sends
/// is lost even when Storekeeper's models do not know a field yet. It reads back into
/// Apple's own models; the top-level `notificationUUID`, `notificationType`, `subtype`,
/// `signedDate` and `environment` are copies of the payload's, kept for whoever reads the
/// store by hand.
public struct StoredNotification: Decodable, Sendable {
    /// The verified envelope, as Apple signed it.
    public var payload: ResponseBodyV2DecodedPayload
    public var notificationUUID: String
    public var signedDate: Int64
    /// When it reached Storekeeper, milliseconds since 1970.
    public var receivedAt: Int64
    /// How it arrived.
    public var via: NotificationArrival
    public var transactionInfo: JWSTransactionDecodedPayload?
    public var renewalInfo: JWSRenewalInfoDecodedPayload?
    // `appTransactionInfo` (a notification about the app, such as RESCIND_CONSENT) is kept in
    // the stored JSON for audit and for what is built on it, but not decoded here: the worker
    // applies nothing from it, so it cannot make a notification fail.

    enum CodingKeys: String, CodingKey {
        case payload, receivedAt, via, transactionInfo, renewalInfo
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        payload = try container.decode(ResponseBodyV2DecodedPayload.self, forKey: .payload)
        guard let notificationUUID = payload.notificationUUID, let signedDate = payload.signedDate else {
            throw DecodingError.dataCorruptedError(forKey: .payload, in: container,
                                                   debugDescription: "notification without notificationUUID or signedDate")
        }
        self.notificationUUID = notificationUUID
        self.signedDate = signedDate
        receivedAt = try container.decode(Int64.self, forKey: .receivedAt)
        via = try container.decode(NotificationArrival.self, forKey: .via)
        transactionInfo = try container.decodeIfPresent(JWSTransactionDecodedPayload.self, forKey: .transactionInfo)
        renewalInfo = try container.decodeIfPresent(JWSRenewalInfoDecodedPayload.self, forKey: .renewalInfo)
    }

    /// The stored form, splicing the verified JSON in unchanged.
    static func encoded(_ verified: VerifiedNotification, receivedAt: Int64, via: NotificationArrival) -> [UInt8] {
        var builder = JSONObjectBuilder()
        builder.add("notificationUUID", verified.notificationUUID)
        if let type = verified.payload.rawNotificationType { builder.add("notificationType", type) }
        if let subtype = verified.payload.rawSubtype { builder.add("subtype", subtype) }
        builder.add("signedDate", rawJSON: Array(String(verified.signedDate).utf8))
        builder.add("environment", verified.environment.rawValue)
        builder.add("receivedAt", rawJSON: Array(String(receivedAt).utf8))
        builder.add("via", via.rawValue)
        builder.add("payload", rawJSON: verified.signed.payload)
        if let transactionInfo = verified.signed.transactionInfo { builder.add("transactionInfo", rawJSON: transactionInfo) }
        if let renewalInfo = verified.signed.renewalInfo { builder.add("renewalInfo", rawJSON: renewalInfo) }
        if let appTransactionInfo = verified.signed.appTransactionInfo { builder.add("appTransactionInfo", rawJSON: appTransactionInfo) }
        return builder.build()
    }

    /// What Apple said, as the entitlement engine applies it.
    public var event: AppleFact {
        AppleFact(.notification(notificationUUID: notificationUUID, signedDate: signedDate,
                                type: payload.rawNotificationType, subtype: payload.rawSubtype,
                                bundleId: payload.data?.bundleId),
                  transaction: transactionInfo, renewalInfo: renewalInfo)
    }
}
