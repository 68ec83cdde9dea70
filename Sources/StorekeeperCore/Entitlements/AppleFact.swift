/// Something Apple stated about a purchase: a verified notification, a signed transaction
/// the app's backend passed on, Apple's answer during reconciliation, or the history read
/// while migrating a receipt. All go through the same `EntitlementEngine`, so every path
/// agrees, and all are built by `init(_:transaction:renewalInfo:)`, so every path names and
/// dates a fact the same way.
public struct AppleFact: Sendable {
    /// How the fact reached Storekeeper, as `lastEvent.source` stores it.
    public enum Source: String, Codable, Sendable, CaseIterable {
        case notification
        case ingest
        /// Apple's answer to reconcile, and to migrate-receipt's lookups.
        case reconciliation
    }

    /// Where a fact came from, with what each source needs to name and date it.
    public enum Origin: Sendable {
        /// A verified notification: its notificationUUID, signing time, raw type and subtype, and
        /// the app its data names (the fact's app when it carries no transaction).
        case notification(notificationUUID: String, signedDate: Int64, type: String?, subtype: String?, bundleId: String? = nil)
        /// A signed transaction passed on by the app's backend, taken at `receivedAt`
        /// (milliseconds; the date when the transaction carries no signedDate).
        case ingest(receivedAt: Int64)
        /// Apple's answer to Get All Subscription Statuses for `originalTransactionId`.
        case reconciliation(originalTransactionId: String)
        /// An answer read while migrating a receipt: `step` tells the history's fact from the
        /// statuses' about the same transaction.
        case migration(step: String, originalTransactionId: String)
    }

    /// How a migration's fact id begins: migrations share reconciliation's source (their
    /// answers are Apple's, read the same way), the timeline still tells them apart.
    static let migrationIdPrefix = "migrate:"

    /// Unique per fact: the notificationUUID, or an id derived from the source and what Apple signed.
    public var id: String
    public var source: Source
    /// Apple's notificationType and subtype, raw (nil for other sources).
    public var type: String?
    public var subtype: String?
    /// When Apple signed it.
    public var signedDate: Int64
    /// The app it is about: the signed transaction's bundle id, or the notification's.
    public var bundleId: String?
    public var transaction: JWSTransactionDecodedPayload?
    public var renewalInfo: JWSRenewalInfoDecodedPayload?

    public init(id: String, source: Source, type: String? = nil, subtype: String? = nil, signedDate: Int64,
                bundleId: String? = nil,
                transaction: JWSTransactionDecodedPayload?, renewalInfo: JWSRenewalInfoDecodedPayload?) {
        self.id = id
        self.bundleId = transaction?.bundleId ?? bundleId
        self.source = source
        self.type = type
        self.subtype = subtype
        self.signedDate = signedDate
        self.transaction = transaction
        self.renewalInfo = renewalInfo
    }

    /// The one builder: what Apple said, named and dated by where it came from.
    public init(_ origin: Origin, transaction: JWSTransactionDecodedPayload?, renewalInfo: JWSRenewalInfoDecodedPayload?) {
        // Apple signs status and history answers when asked, so their signedDate is "now":
        // newer than any notification already applied, and merged by the same rules.
        let answeredAt = max(transaction?.signedDate ?? 0, renewalInfo?.signedDate ?? 0)
        switch origin {
        case .notification(let notificationUUID, let signedDate, let type, let subtype, let bundleId):
            self.init(id: notificationUUID, source: .notification, type: type, subtype: subtype, signedDate: signedDate,
                      bundleId: bundleId, transaction: transaction, renewalInfo: renewalInfo)
        case .ingest(let receivedAt):
            let signedDate = transaction?.signedDate ?? receivedAt
            self.init(id: "ingest:\(transaction?.transactionId ?? "?"):\(signedDate)", source: .ingest, signedDate: signedDate,
                      transaction: transaction, renewalInfo: renewalInfo)
        case .reconciliation(let originalTransactionId):
            self.init(id: "reconcile:\(originalTransactionId):\(answeredAt)", source: .reconciliation, signedDate: answeredAt,
                      transaction: transaction, renewalInfo: renewalInfo)
        case .migration(let step, let originalTransactionId):
            self.init(id: Self.migrationIdPrefix + "\(step):\(transaction?.transactionId ?? originalTransactionId):\(answeredAt)",
                      source: .reconciliation, signedDate: answeredAt, transaction: transaction, renewalInfo: renewalInfo)
        }
    }

    /// The notification type, typed; nil for other sources and for a type Apple added later.
    public var notificationType: NotificationTypeV2? { type.flatMap(NotificationTypeV2.init(rawValue:)) }

    /// The original transaction this fact is about, when it carries one.
    public var originalTransactionId: String? {
        transaction?.originalTransactionId ?? renewalInfo?.originalTransactionId
    }

    /// The subscription this fact is about, when it names both its app and its original transaction.
    public var subscription: SubscriptionRef? {
        guard let bundleId, let originalTransactionId else { return nil }
        return SubscriptionRef(bundleId: bundleId, originalTransactionId: originalTransactionId)
    }
}
