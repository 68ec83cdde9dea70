/// The seam where a verified legacy receipt moves to the App Store Server API: for each
/// original transaction id it names, Get Transaction History and Get All Subscription
/// Statuses, link the subscription to the user, apply Apple's answer to the entitlement, and
/// Set App Account Token where the user has one. `AppStoreReceiptMigrator` is the
/// implementation over the API client; `ReceiptMigration` runs it for `migrate-receipt`.
public protocol ReceiptMigrator {
    /// Migrates every subscription and purchase of `receipt` (already verified, from
    /// `environment`: Production or Sandbox) for `account` (user and appAccountToken when known).
    func migrate(_ receipt: AppReceipt, environment: String, account: ReceiptMigrationAccount) throws -> ReceiptMigrationOutcome
}

/// Who a migration is for: the user to link the purchases to, and the appAccountToken to set
/// at Apple on purchases that carry none.
public struct ReceiptMigrationAccount: Sendable, Equatable {
    public var userId: String?
    /// A lowercase UUID.
    public var appAccountToken: String?

    public init(userId: String? = nil, appAccountToken: String? = nil) {
        self.userId = userId
        self.appAccountToken = appAccountToken
    }
}

/// What a migration did, per original transaction id: the new track's status (the names of
/// `EntitlementStatus`), to be recorded next to the legacy track's.
public struct ReceiptMigrationOutcome: Sendable, Equatable, Encodable {
    public struct Subscription: Sendable, Equatable, Encodable {
        public var originalTransactionId: String
        public var productId: String?
        /// The entitlement's status after Apple's answers were applied; nil when there is no
        /// entitlement (a consumable, or Apple does not know the id).
        public var status: String?
        /// The status stored before this migration (nil: there was no record).
        public var statusBefore: String?
        /// Whether the receipt named this id (Apple's answers may add the customer's later purchases).
        public var inReceipt: Bool
        /// Signed transactions and renewal infos that changed the stored record; 0 on a rerun
        /// once Apple's answers are applied.
        public var eventsApplied: Int
        /// Transactions its record holds now that it did not before (Apple's answers signed
        /// afresh change a record without adding one).
        public var transactionsAdded: Int
        /// Whether the subscription belongs to the request's user after the migration (nil
        /// without a user); false when another user owned it first.
        public var linkedToUser: Bool?
        /// Whether Set App Account Token was called for it in this run.
        public var appAccountTokenSet: Bool
        /// Why Apple's answer about it was not applied (`not_found`, Apple's error name, or a
        /// verification error code), when it was not.
        public var failure: String?

        public init(originalTransactionId: String, productId: String? = nil, status: String?, statusBefore: String? = nil,
                    inReceipt: Bool = true, eventsApplied: Int = 0, transactionsAdded: Int = 0, linkedToUser: Bool? = nil,
                    appAccountTokenSet: Bool = false, failure: String? = nil) {
            self.originalTransactionId = originalTransactionId
            self.productId = productId
            self.status = status
            self.statusBefore = statusBefore
            self.inReceipt = inReceipt
            self.eventsApplied = eventsApplied
            self.transactionsAdded = transactionsAdded
            self.linkedToUser = linkedToUser
            self.appAccountTokenSet = appAccountTokenSet
            self.failure = failure
        }
    }

    /// Sorted by original transaction id.
    public var subscriptions: [Subscription]
    /// Requests sent to the App Store Server API (pages and calls, not retries).
    public var appleRequests: Int

    public init(subscriptions: [Subscription], appleRequests: Int = 0) {
        self.subscriptions = subscriptions
        self.appleRequests = appleRequests
    }

    public func subscription(_ originalTransactionId: String) -> Subscription? {
        subscriptions.first { $0.originalTransactionId == originalTransactionId }
    }
}
