/// How far one run of `AppStoreReceiptMigrator` has come: per original transaction id what
/// was stored before and what the run did to it, which ids Apple's answers already covered
/// (the customer's history usually covers every id of the receipt: they are not asked again),
/// and how many requests went to Apple.
///
/// A value the migrator's steps pass along and change; it reads and writes nothing itself.
struct ReceiptMigrationProgress {
    /// One original transaction id's part of the run.
    struct Subject: Equatable {
        var statusBefore: EntitlementStatus?
        /// Transactions its record held before the run.
        var transactionsBefore = 0
        var eventsApplied = 0
        var appAccountTokenSet = false
        var failure: String?
    }

    private(set) var subjects: [String: Subject] = [:]
    /// Pages and calls sent to the App Store Server API (not retries).
    var appleRequests = 0
    private var coveredByHistory = Set<String>()
    private var coveredByStatuses = Set<String>()
    private var subscriptions = Set<String>()

    /// Every id the run has touched, sorted.
    var ids: [String] { subjects.keys.sorted() }

    func knows(_ id: String) -> Bool { subjects[id] != nil }

    /// Starts following `id`, with the status its record had before the run (nil: no record).
    mutating func follow(_ id: String, statusBefore: EntitlementStatus?, transactionsBefore: Int = 0) {
        guard subjects[id] == nil else { return }
        subjects[id] = Subject(statusBefore: statusBefore, transactionsBefore: transactionsBefore)
    }

    /// The steps below change only ids the run follows: an answer about an id nobody asked
    /// for is followed first (`follow`), so nothing is lost.
    mutating func countApplied(_ id: String) { subjects[id]?.eventsApplied += 1 }
    mutating func markTokenSet(_ id: String) { subjects[id]?.appAccountTokenSet = true }
    mutating func fail(_ id: String, _ code: String) { subjects[id]?.failure = code }

    /// Apple's history named this transaction: its original id needs no history of its own,
    /// and a subscription's statuses are asked next.
    mutating func cover(byHistory transaction: JWSTransactionDecodedPayload) {
        guard let original = transaction.originalTransactionId else { return }
        coveredByHistory.insert(original)
        if transaction.type == .autoRenewableSubscription { subscriptions.insert(original) }
    }

    mutating func cover(byStatuses id: String) { coveredByStatuses.insert(id) }

    func needsHistory(_ id: String) -> Bool { !coveredByHistory.contains(id) }

    /// Get All Subscription Statuses brings the renewal info (billing retry, grace,
    /// auto-renew), which the history does not have; once per subscription.
    func needsStatuses(_ id: String) -> Bool { subscriptions.contains(id) && !coveredByStatuses.contains(id) }
}
