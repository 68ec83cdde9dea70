import FoundationEssentials

/// `migrate-receipt`'s workflow once a receipt verified and the caller is known: the legacy
/// verifyReceipt track when it is asked for, then the new track (Apple's answers applied by a
/// `ReceiptMigrator`, or, for an anonymous rerun within a day, what the store already holds),
/// then both tracks compared and recorded side by side.
///
/// What Apple applied stays when a later step fails: every step is idempotent and a rerun
/// finishes the rest.
public struct ReceiptMigration {
    /// What verifyReceipt said, and the status inferred from it per subscription.
    public struct LegacyTrack: Sendable {
        public let answer: VerifyReceiptClient.Answer
        public let subscriptions: [LegacySubscriptionStatus]
    }

    public struct Result: Sendable {
        public let outcome: ReceiptMigrationOutcome
        /// True when an anonymous rerun was answered from the store and nothing was asked of Apple.
        public let fromStore: Bool
        public let legacy: LegacyTrack?
        /// One per subscription the legacy track knows, as recorded; empty without the legacy track.
        public let audits: [ReceiptMigrationAudit]
    }

    private let migrator: any ReceiptMigrator
    private let store: any KeyValueStore
    private let clock: any TimeSource
    private let legacy: VerifyReceiptClient?

    /// `legacy` is the verifyReceipt client when the request asks for the legacy track.
    public init(migrator: any ReceiptMigrator, store: any KeyValueStore, clock: any TimeSource, legacy: VerifyReceiptClient? = nil) {
        self.migrator = migrator
        self.store = store
        self.clock = clock
        self.legacy = legacy
    }

    /// Migrates `receipt`, read from `receiptData` (base64, which verifyReceipt takes) and
    /// verified as from `environment` (Production or Sandbox). `anonymous`: nobody vouches for
    /// a user, so a recent migration of the same ids may answer from the store.
    ///
    /// Throws `VerifyReceiptError` from the legacy track, `AppStoreAPIError` when Apple cannot
    /// answer or refuses the key, and `StoreError`.
    public func run(_ receipt: AppReceipt, receiptData: String, environment: String,
                    account: ReceiptMigrationAccount, anonymous: Bool) throws -> Result {
        let legacyTrack = try legacy.map { client throws(VerifyReceiptError) in
            let answer = try client.verify(receiptData: receiptData)
            return LegacyTrack(answer: answer, subscriptions: LegacySubscriptionStatus.infer(from: answer.response, now: clock.now()))
        }
        let (outcome, fromStore) = try newTrack(receipt, environment: environment, account: account, anonymous: anonymous)
        let audits = try legacyTrack.map { try record(outcome, of: receipt.bundleId, beside: $0, environment: environment) } ?? []
        return Result(outcome: outcome, fromStore: fromStore, legacy: legacyTrack, audits: audits)
    }

    /// The user to link to and the appAccountToken to set at Apple: the given token
    /// (lowercase UUID), which becomes the user's; else the token of the user's Sign in with
    /// Apple account. Nil when the given token belongs to another user.
    public static func account(userId: String?, appAccountToken: String?, store: any KeyValueStore) throws -> ReceiptMigrationAccount? {
        if let token = appAccountToken {
            if let userId, try !EntitlementRepository(store: store).assign(appAccountToken: token, toUser: userId) {
                return nil
            }
            return ReceiptMigrationAccount(userId: userId, appAccountToken: token)
        }
        guard let userId else { return ReceiptMigrationAccount() }
        let token = try AccountRepository(store: store, dataKey: nil).account(userId: userId)?.appAccountToken
        return ReceiptMigrationAccount(userId: userId, appAccountToken: token)
    }

    /// From the store for an anonymous rerun (`ReceiptMigrationMemo`), else from Apple, and
    /// then remembered for a day.
    private func newTrack(_ receipt: AppReceipt, environment: String, account: ReceiptMigrationAccount,
                          anonymous: Bool) throws -> (ReceiptMigrationOutcome, fromStore: Bool) {
        if anonymous, let stored = try ReceiptMigrationMemo.storedOutcome(for: receipt, now: clock.now(), store: store) {
            return (stored, true)
        }
        let outcome = try migrator.migrate(receipt, environment: environment, account: account)
        try ReceiptMigrationMemo.record(outcome, of: receipt.bundleId, now: clock.now(), in: store)
        return (outcome, false)
    }

    private func record(_ outcome: ReceiptMigrationOutcome, of bundleId: String, beside legacy: LegacyTrack,
                        environment: String) throws -> [ReceiptMigrationAudit] {
        let audits = ReceiptMigrationAudit.compare(legacy: legacy.subscriptions, outcome: outcome,
                                                   environment: environment, now: clock.now())
        for audit in audits { try audit.save(of: bundleId, in: store) }
        return audits
    }
}
