/// The pure heart of Storekeeper: (current record or none, a fact Apple stated) → new record.
///
/// No I/O and no clock: the caller loads the record, applies, and stores it with a
/// compare-and-set. Because the record merges facts by their signing time, the result does
/// not depend on the order events arrive in, nor on how often one arrives.
public enum EntitlementEngine {
    /// Notification types that are about something other than a purchase's state.
    static let notApplied: Set<NotificationTypeV2> = [
        .test, .consumptionRequest, .renewalExtension, .externalPurchaseToken, .metadataUpdate, .rescindConsent,
    ]

    /// A type Apple adds later is applied like any other: the record keeps signed facts (the
    /// transaction and renewal info it carries, merged by signing time), not a meaning of the
    /// type, so a type nobody here knows yet can only bring newer facts. Its raw name stays in
    /// `lastEvent.type`.
    public static func apply(_ event: AppleFact, to current: EntitlementRecord?) throws(EntitlementError) -> EntitlementUpdate {
        if let type = event.notificationType, notApplied.contains(type) {
            return EntitlementUpdate(outcome: .ignored, record: current, reason: "\(type.rawValue) does not change an entitlement")
        }
        guard let transaction = event.transaction else {
            return EntitlementUpdate(outcome: .ignored, record: current, reason: "no transaction in the event")
        }
        let facts = try TransactionFacts(transaction, signedDate: event.signedDate)
        if facts.type == .consumable {
            return EntitlementUpdate(outcome: .ignored, record: current, reason: "a consumable grants no entitlement")
        }
        if let current, current.originalTransactionId != facts.originalTransactionId {
            throw EntitlementError("event for \(facts.originalTransactionId) applied to the record of \(current.originalTransactionId)")
        }

        let summary = EventSummary(event)
        var record = current ?? EntitlementRecord(
            originalTransactionId: facts.originalTransactionId, transactions: [:], renewal: nil, lastEvent: summary)
        record.merge(facts)
        if let renewalInfo = event.renewalInfo {
            let renewal = RenewalFacts(renewalInfo, signedDate: event.signedDate)
            record.merge(renewal)
            record.observe(renewal)
        }
        record.merge(summary)

        // The timeline has every fact Apple stated once, even one that changed nothing (a late
        // renewal, say); reconciliation's daily answers only when they corrected something.
        let changed = record != current
        if changed || event.source != .reconciliation {
            record.record(HistoryEntry(event, transaction: facts))
        }
        if let current, !changed {
            let outcome: EntitlementUpdate.Outcome = current.history.contains { $0.id == event.id } || current.lastEvent.id == event.id
                ? .duplicate : .stale
            return EntitlementUpdate(outcome: outcome, record: record, reason: nil)
        }
        return EntitlementUpdate(outcome: .applied, record: record, reason: nil)
    }
}
