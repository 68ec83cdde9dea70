import StorekeeperCore

/// Tests speak of one app (the test PKI's) unless they say otherwise: these read a record or
/// a user's subscriptions by original transaction id alone.
extension EntitlementRepository {
    /// The record's facts, as the engine alone makes them: without whose events they are and
    /// the events waiting to be relayed (tests compare it with `LifecycleSimulator.inOrderRecord`).
    public func record(_ originalTransactionId: String, bundleId: String = TestPKI.bundleId) throws -> EntitlementRecord? {
        try record(SubscriptionRef(bundleId: bundleId, originalTransactionId: originalTransactionId)).map { stored in
            var facts = stored
            facts.customerId = nil
            facts.outbox = []
            return facts
        }
    }

    public func originalTransactionIds(ofUser userId: String) throws -> [String] {
        try subscriptions(ofUser: userId).map(\.originalTransactionId)
    }
}

extension SubscriptionRef {
    /// A subscription of the test PKI's app.
    public static func testApp(_ originalTransactionId: String) -> SubscriptionRef {
        SubscriptionRef(bundleId: TestPKI.bundleId, originalTransactionId: originalTransactionId)
    }
}
