import FoundationEssentials
import OpenSSLCrypto

/// Moving in from a hosted service: for each line of an export (a user id and an original
/// transaction id), ask Apple for the purchase (Get Transaction History, every page, and Get
/// All Subscription Statuses, through `AppStoreReceiptMigrator`: verified like any other
/// answer, applied through the same engine as an `import` fact) and link it to the user
/// through the repository's linking, where the first owner keeps a purchase.
///
/// - Resumable: after every line its result and the cursor are saved, so a killed or
///   out-of-time run continues at the line it was on; a finished run stays saved (7 days), so
///   a rerun of the same input answers from the store. `restart` starts over.
/// - Rate limits are the client's business (its gate waits on the shared bucket); Apple
///   unreachable or failing after the client's retries stops the run at that line.
public final class CustomerImport {
    private let store: any KeyValueStore
    private let repository: EntitlementRepository
    private let makeMigrator: (_ bundleId: String) throws -> AppStoreReceiptMigrator
    /// One per app, made when a line first needs it: each app's tokens carry its `bid`.
    private var migrators: [String: AppStoreReceiptMigrator] = [:]
    private let clock: any TimeSource
    private let apps: Set<String>
    /// Where Apple is asked first: "Production" (the migrator falls back to the sandbox when
    /// it was built to).
    private let environment: String

    /// Called after each line with (done, total), for a progress line on a terminal.
    public var progress: ((Int, Int) -> Void)?

    /// `apps`: the deployment's bundle ids, which a line's `bundleId` must name; `migrator`
    /// makes the migrator that asks Apple about one of them.
    public init(store: any KeyValueStore, clock: any TimeSource, apps: Set<String>, environment: String = "Production",
                migrator: @escaping (_ bundleId: String) throws -> AppStoreReceiptMigrator) {
        self.store = store
        self.repository = EntitlementRepository(store: store)
        self.makeMigrator = migrator
        self.clock = clock
        self.apps = apps
        self.environment = environment
    }

    private func migrator(for bundleId: String) throws -> AppStoreReceiptMigrator {
        if let made = migrators[bundleId] { return made }
        let made = try makeMigrator(bundleId)
        made.factOrigin = { .import(step: $0, originalTransactionId: $1) }
        migrators[bundleId] = made
        return made
    }

    /// The name of a run: the digest of its lines, so the same input resumes the same run.
    public static func runName(_ lines: [CustomerImportLine]) -> String {
        let text = lines.map(\.fingerprint).joined(separator: "\n")
        return String(Hex.encode(Digest.sha256(Array(text.utf8))).prefix(32))
    }

    /// Imports `lines` in order until done or until `outOfTime()` says so (asked before each
    /// line). Throws `StoreError` when the store fails and `AppStoreAPIError` when Apple
    /// refuses the API key; anything about one line is that line's result.
    public func run(_ lines: [CustomerImportLine], restart: Bool = false, outOfTime: () -> Bool) throws -> CustomerImportReport {
        let name = Self.runName(lines)
        let cursorKey = StoreKeys.customerImport(run: name)
        if restart { _ = try store.delete(cursorKey) }
        var cursor = try savedCursor(cursorKey, total: lines.count)
            ?? CustomerImportCursor(next: 0, total: lines.count, startedAt: clock.now().millisecondsSince1970)
        var report = CustomerImportReport(run: name, total: lines.count)
        if cursor.next > 0, cursor.next < lines.count { report.resumedAt = cursor.next + 1 }
        for index in 0..<cursor.next {
            guard var earlier = try store.get(StoreKeys.customerImportLine(run: name, line: index), as: CustomerImportLineResult.self)
            else { continue }
            earlier.fromEarlierRun = true
            report.add(earlier)
        }
        var covered: [SubscriptionRef: String] = [:]
        for index in cursor.next..<lines.count {
            if outOfTime() {
                report.outOfTime = true
                break
            }
            guard let result = try importLine(lines[index], covered: &covered, into: &report) else { break }
            try store.set(StoreKeys.customerImportLine(run: name, line: index), record: result, expiresIn: CustomerImportCursor.lifetime)
            cursor.next = index + 1
            try store.set(cursorKey, record: cursor, expiresIn: CustomerImportCursor.lifetime)
            report.add(result)
            progress?(report.done, report.total)
        }
        return report
    }

    /// A cursor that does not decode, or belongs to other lines of the same digest, starts over.
    private func savedCursor(_ key: String, total: Int) throws(StoreError) -> CustomerImportCursor? {
        let cursor: CustomerImportCursor?
        do {
            cursor = try store.get(key, as: CustomerImportCursor.self)
        } catch where error.isStoreFault {
            throw error
        } catch {
            return nil
        }
        guard let cursor, cursor.total == total, cursor.next <= total else { return nil }
        return cursor
    }

    /// One line: checked, asked, applied, judged. Nil when the run must stop before it (out of
    /// time, Apple unavailable: the report says which), so the cursor stays on it.
    ///
    /// `covered`: the purchases earlier lines of this run brought in, with their user. Apple's
    /// history is the customer's, so a line about one of them for the same user is answered
    /// from the store (an export with a row per purchase asks Apple once per customer).
    private func importLine(_ line: CustomerImportLine, covered: inout [SubscriptionRef: String],
                            into report: inout CustomerImportReport) throws -> CustomerImportLineResult? {
        if let invalid = line.invalidity(apps: apps) {
            return CustomerImportLineResult(line, result: .invalidLine, reason: invalid)
        }
        guard let bundleId = line.app(among: apps) else {
            return CustomerImportLineResult(line, result: .invalidLine, reason: "the line names no app")
        }
        let subscription = SubscriptionRef(bundleId: bundleId, originalTransactionId: line.originalTransactionId)
        if covered[subscription] == line.userId, let known = try alreadyImported(line, subscription) {
            return known
        }
        // Storekeeper's own owner is newer than the export: the line's purchase is left to them
        // whatever the transfer policy, and Apple is not asked.
        if let owner = try repository.owner(of: subscription), owner != line.userId {
            return CustomerImportLineResult(line, result: .alreadyLinkedToAnotherUser, alreadyLinked: false,
                                            reason: "another user owns the purchase; an import never moves one")
        }
        let wasLinked = try repository.subscriptions(ofUser: line.userId).contains(subscription)
        let outcome: ReceiptMigrationOutcome
        do {
            outcome = try migrator(for: bundleId).migrate(
                originalTransactionIds: [line.originalTransactionId], bundleId: bundleId, environment: environment,
                account: ReceiptMigrationAccount(userId: line.userId))
        } catch let error as AppStoreAPIError {
            switch error.code {
            case AppStoreAPIError.OwnCode.rateLimitWaitPastBudget.rawValue:
                report.outOfTime = true
                return nil
            case AppStoreAPIError.OwnCode.rateLimitStoreUnavailable.rawValue:
                throw StoreError(.unavailable, error.reason)
            default:
                break
            }
            if error.kind == .unauthorized { throw error }
            if error.isRetryable || error.kind == .transport || error.kind == .deadlineExceeded {
                report.stoppedBy = "apple_unavailable"
                return nil
            }
            return CustomerImportLineResult(line, result: .rejected, code: error.code, reason: error.reason)
        }
        report.appleRequests += outcome.appleRequests
        for subscription in outcome.subscriptions where subscription.failure == nil && subscription.linkedToUser == true {
            covered[SubscriptionRef(bundleId: bundleId, originalTransactionId: subscription.originalTransactionId)] = line.userId
        }
        let result = Self.judge(line, outcome, wasLinked: wasLinked)
        report.transactionsBackfilled += result.transactionsBackfilled
        return result
    }

    /// A purchase an earlier line imported for the same user, as the store has it now.
    private func alreadyImported(_ line: CustomerImportLine, _ subscription: SubscriptionRef) throws -> CustomerImportLineResult? {
        guard let record = try repository.record(subscription) else { return nil }
        let linked = try repository.subscriptions(ofUser: line.userId).contains(subscription)
        let entitlement = Entitlement(record, now: clock.now())
        let answer = CustomerImportLineResult.Subscription(
            originalTransactionId: line.originalTransactionId, productId: entitlement.productId,
            status: entitlement.status.rawValue, linkedToUser: linked, failure: nil)
        return CustomerImportLineResult(line, result: linked ? .linked : .alreadyLinkedToAnotherUser, alreadyLinked: linked,
                                        subscriptions: [answer],
                                        reason: "Apple's answers to an earlier line of this run covered it: not asked again")
    }

    /// The line's verdict from what the migrator did about its purchase.
    static func judge(_ line: CustomerImportLine, _ outcome: ReceiptMigrationOutcome, wasLinked: Bool) -> CustomerImportLineResult {
        let subscriptions = outcome.subscriptions.map {
            CustomerImportLineResult.Subscription(originalTransactionId: $0.originalTransactionId, productId: $0.productId,
                                                  status: $0.status, linkedToUser: $0.linkedToUser, failure: $0.failure)
        }
        let applied = outcome.subscriptions.reduce(0) { $0 + $1.transactionsAdded }
        let own = outcome.subscription(line.originalTransactionId)
        func result(_ verdict: CustomerImportLineResult.Result, code: String? = nil, reason: String? = nil) -> CustomerImportLineResult {
            CustomerImportLineResult(line, result: verdict, transactionsBackfilled: applied, alreadyLinked: wasLinked,
                                     subscriptions: subscriptions, code: code, reason: reason)
        }
        switch (own?.failure, own?.linkedToUser) {
        case (ReportFailureCode.notFound.rawValue?, _):
            return result(.notFound, reason: "Apple does not know this original transaction id")
        case (let failure?, _):
            return result(.rejected, code: failure, reason: "Apple's signed answer about it was refused")
        case (nil, true?):
            return result(.linked)
        case (nil, false?):
            return result(.alreadyLinkedToAnotherUser, reason: "another user owned the purchase first; it stays theirs")
        case (nil, nil):
            return result(.notFound, reason: "Apple's answers hold no purchase Storekeeper keeps under this id")
        }
    }
}
