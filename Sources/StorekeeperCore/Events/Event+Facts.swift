import OpenSSLCrypto

/// How each kind of change becomes an `Event` (before the relay gives it a sequence and the
/// customer): one builder per kind, so every path names and fills events the same way.
extension Event {
    /// The customer id of a purchase nobody is linked to.
    public static func anonymousCustomer(_ originalTransactionId: String) -> String {
        "otid:" + originalTransactionId
    }

    /// A stable id from what names the happening: the same change always gets the same id.
    static func id(_ parts: [String]) -> String {
        "evt_" + Hex.encode(Digest.sha256(Array(parts.joined(separator: "\u{1F}").utf8)).prefix(16))
    }

    /// The event of an Apple fact applied to a purchase's record.
    static func of(_ fact: AppleFact, type: EventType, purchase: SubscriptionRef, latest: TransactionFacts?,
                   customerId: String, recordedAt: Int64) -> Event {
        let fromNotification = fact.source == .notification
        return Event(id: id([purchase.member, fact.id, type.rawValue]), type: type.rawValue, occurredAt: fact.signedDate,
                     recordedAt: recordedAt, app: purchase.bundleId, environment: latest?.rawEnvironment,
                     customerId: customerId, userId: userId(of: customerId), appAccountToken: latest?.appAccountToken,
                     productId: fact.transaction?.productId ?? latest?.productId,
                     transactionId: fact.transaction?.transactionId ?? latest?.transactionId,
                     originalTransactionId: latest?.originalTransactionId ?? fact.originalTransactionId,
                     notificationUUID: fromNotification ? fact.id : nil, notificationType: fromNotification ? fact.type : nil,
                     notificationSubtype: fromNotification ? fact.subtype : nil,
                     source: HistoryEntry.kind(of: fact).source)
    }

    /// A purchase now belongs to `to` (from `from`, nil when nobody was recorded).
    static func transfer(of purchase: SubscriptionRef, latest: TransactionFacts?, from: String?, to: String,
                         at date: Int64, source: String) -> Event {
        Event(id: id([purchase.member, "TRANSFER", from ?? "", to, String(date)]), type: EventType.transfer.rawValue,
              occurredAt: date, recordedAt: date, app: purchase.bundleId, environment: latest?.rawEnvironment,
              customerId: to, previousCustomerId: from, userId: userId(of: to), appAccountToken: latest?.appAccountToken,
              productId: latest?.productId, transactionId: latest?.transactionId,
              originalTransactionId: latest?.originalTransactionId ?? purchase.originalTransactionId, source: source)
    }

    /// A grant given or taken back by support.
    static func grant(_ grant: EntitlementGrant, type: EventType, userId: String, at date: Int64) -> Event {
        Event(id: id(["grant", grant.grantId, type.rawValue]), type: type.rawValue, occurredAt: date, recordedAt: date,
              app: grant.bundleId, customerId: userId, userId: userId, entitlement: grant.entitlement,
              grantId: grant.grantId, source: "support")
    }

    /// A notification that is an event of its own although nothing changed (`EventClassifier.standalone`).
    static func standalone(_ fact: AppleFact, type: EventType, purchase: SubscriptionRef?, latest: TransactionFacts?,
                           customerId: String?, environment: String?, recordedAt: Int64) -> Event {
        Event(id: id(["notification", fact.id]), type: type.rawValue, occurredAt: fact.signedDate, recordedAt: recordedAt,
              app: purchase?.bundleId ?? fact.bundleId, environment: latest?.rawEnvironment ?? environment,
              customerId: customerId, userId: customerId.flatMap(userId(of:)),
              appAccountToken: fact.transaction?.appAccountToken ?? latest?.appAccountToken,
              productId: fact.transaction?.productId ?? latest?.productId,
              transactionId: fact.transaction?.transactionId, originalTransactionId: fact.originalTransactionId,
              notificationUUID: fact.id, notificationType: fact.type, notificationSubtype: fact.subtype,
              source: "notification")
    }

    /// The user of a customer id; nil for an anonymous purchase's.
    static func userId(of customerId: String) -> String? {
        customerId.hasPrefix("otid:") ? nil : customerId
    }
}
