/// Something that tells Storekeeper about a purchase: a verified notification, a signed
/// transaction the app's backend passed on, or Apple's answer during reconciliation. All
/// three go through the same `EntitlementEngine`, so every path agrees.
public struct EntitlementEvent: Sendable {
    public enum Source: String, Codable, Sendable {
        case notification
        case ingest
        case reconciliation
    }

    /// Unique per event: the notificationUUID, or an id the caller derives for other sources.
    public var id: String
    public var source: Source
    /// Apple's notificationType and subtype, raw (nil for ingest and reconciliation).
    public var type: String?
    public var subtype: String?
    /// When Apple signed the event.
    public var signedDate: Int64
    public var transaction: JWSTransactionDecodedPayload?
    public var renewalInfo: JWSRenewalInfoDecodedPayload?

    public init(id: String, source: Source, type: String? = nil, subtype: String? = nil, signedDate: Int64,
                transaction: JWSTransactionDecodedPayload?, renewalInfo: JWSRenewalInfoDecodedPayload?) {
        self.id = id
        self.source = source
        self.type = type
        self.subtype = subtype
        self.signedDate = signedDate
        self.transaction = transaction
        self.renewalInfo = renewalInfo
    }

    /// The notification type, typed; nil for other sources and for a type Apple added later.
    public var notificationType: NotificationTypeV2? { type.flatMap(NotificationTypeV2.init(rawValue:)) }

    /// The original transaction this event is about, when it carries one.
    public var originalTransactionId: String? {
        transaction?.originalTransactionId ?? renewalInfo?.originalTransactionId
    }
}

/// The last event applied to an entitlement, as `get-entitlements` reports it.
public struct EventSummary: Codable, Sendable, Equatable, Hashable {
    public var id: String
    public var source: EntitlementEvent.Source
    public var type: String?
    public var subtype: String?
    public var signedDate: Int64

    init(_ event: EntitlementEvent) {
        id = event.id
        source = event.source
        type = event.type
        subtype = event.subtype
        signedDate = event.signedDate
    }

    /// Later signed wins; for the same instant the larger id, so the choice does not depend
    /// on arrival order.
    func isNewer(than other: EventSummary) -> Bool {
        if signedDate != other.signedDate { return signedDate > other.signedDate }
        return id > other.id
    }
}
