/// The seam where a verified legacy receipt moves to the App Store Server API: for each
/// original transaction id it names, Get Transaction History and Get All Subscription
/// Statuses, link the subscription to the user, apply Apple's answer to the entitlement, and
/// Set App Account Token where the user has one.
///
/// No implementation exists yet: it needs the App Store Server API client. Until one is
/// given to `migrate-receipt`, the function verifies the receipt, optionally runs the legacy
/// track (verifyReceipt), and says that no migration was performed.
public protocol ReceiptMigrator {
    /// Migrates every subscription and purchase of `receipt` (already verified, from
    /// `environment`: Production or Sandbox) for `userId` when known.
    func migrate(_ receipt: AppReceipt, environment: String, userId: String?) throws -> ReceiptMigrationOutcome
}

/// What a migration did, per original transaction id: the new track's status (the names of
/// `EntitlementStatus`), to be recorded next to the legacy track's.
public struct ReceiptMigrationOutcome: Sendable, Equatable, Encodable {
    public struct Subscription: Sendable, Equatable, Encodable {
        public var originalTransactionId: String
        public var status: String

        public init(originalTransactionId: String, status: String) {
            self.originalTransactionId = originalTransactionId
            self.status = status
        }
    }

    public var subscriptions: [Subscription]

    public init(subscriptions: [Subscription]) {
        self.subscriptions = subscriptions
    }
}
