import FoundationEssentials

/// Moves a verified legacy receipt to the App Store Server API.
///
/// For each original transaction id of the receipt: Get Transaction History (every page) and,
/// for subscriptions, Get All Subscription Statuses; every signed transaction and renewal
/// info is verified and applied through `EntitlementRepository` (source `reconciliation`:
/// Apple's answer when asked), linked to the user when one is known. Apple's history is the
/// customer's, so one answer usually covers every id of the receipt: ids already covered are
/// not asked again.
///
/// With an appAccountToken, Set App Account Token is called for each purchase whose
/// transactions carry none, before anything is applied, and the history is read again, so the
/// stored facts are what Apple says after the token was set (and a rerun finds nothing new).
///
/// Idempotent: an event already applied is a duplicate. When Apple fails part way (5xx,
/// unreachable) the error is thrown; what was applied before it is Apple's truth and stays,
/// and a rerun finishes the rest.
public final class AppStoreReceiptMigrator: ReceiptMigrator {
    private let client: AppStoreServerAPIClient
    private let verifier: SignedDataVerifier
    private let repository: EntitlementRepository
    private let clock: any TimeSource
    private let sandboxFallback: Bool

    /// Called when Apple's signed answer about an id is refused (it is not applied): it fails
    /// verification (its VerificationError code), does not decode (`invalidPayload`), or
    /// cannot be applied (`invalidTransaction`).
    public var onRejected: ((String, String) -> Void)?
    /// How the facts it applies are named: a migration's by default, an import's for
    /// import-customers (`AppleFact.Origin.import`), so each customer's history says which.
    public var factOrigin: (_ step: String, _ originalTransactionId: String) -> AppleFact.Origin = {
        .migration(step: $0, originalTransactionId: $1)
    }

    /// The failure of a signed answer that verified but does not decode as its model.
    public static let invalidPayload = ReportFailureCode.invalidPayload.rawValue
    /// The failure of a transaction that decoded but cannot be applied (no transactionId, ...).
    public static let invalidTransaction = "INVALID_TRANSACTION"

    public init(client: AppStoreServerAPIClient, verifier: SignedDataVerifier, store: any KeyValueStore,
                clock: any TimeSource, sandboxFallback: Bool, transfers: TransferContext? = nil) {
        self.client = client
        self.verifier = verifier
        self.repository = EntitlementRepository(store: store, transfers: transfers)
        self.clock = clock
        self.sandboxFallback = sandboxFallback
    }

    /// What every step of one run shares: the time, where to ask, for whom.
    private struct Run {
        let now: Date
        let environment: AppStoreAPIEnvironment
        /// Whether a production "not found" is asked of the sandbox.
        let fallback: Bool
        let account: ReceiptMigrationAccount
        /// The receipt's app: every subscription it finds is that app's.
        let bundleId: String

        func subscription(_ originalTransactionId: String) -> SubscriptionRef {
            SubscriptionRef(bundleId: bundleId, originalTransactionId: originalTransactionId)
        }
    }

    /// Throws `AppStoreAPIError` when Apple cannot answer (retryable: rerun) or refuses the
    /// API key, and `StoreError` when the store fails. A signed answer that is refused (see
    /// `onRejected`) is noted as its id's `failure` and the run goes on: a rerun would stop at
    /// the same answer.
    public func migrate(_ receipt: AppReceipt, environment: String, account: ReceiptMigrationAccount) throws -> ReceiptMigrationOutcome {
        try migrate(originalTransactionIds: receipt.originalTransactionIds, bundleId: receipt.bundleId,
                    environment: environment, account: account)
    }

    /// The same for original transaction ids of `bundleId` from elsewhere (import-customers' lines).
    public func migrate(originalTransactionIds: [String], bundleId: String, environment: String,
                        account: ReceiptMigrationAccount) throws -> ReceiptMigrationOutcome {
        let apiEnvironment: AppStoreAPIEnvironment = environment == "Sandbox" ? .sandbox : .production
        let run = Run(now: clock.now(), environment: apiEnvironment,
                      fallback: apiEnvironment == .production && sandboxFallback, account: account,
                      bundleId: bundleId)
        var progress = ReceiptMigrationProgress()
        for id in originalTransactionIds {
            try follow(id, run, &progress)
            if progress.needsHistory(id) { try migrateHistory(of: id, run, &progress) }
            if progress.needsStatuses(id) { try applyStatuses(of: id, run, &progress) }
        }
        return try outcome(progress, receiptIds: originalTransactionIds, run)
    }

    // MARK: - Steps

    private func follow(_ id: String, _ run: Run, _ progress: inout ReceiptMigrationProgress) throws {
        guard !progress.knows(id) else { return }
        let stored = try repository.record(run.subscription(id))
        progress.follow(id, statusBefore: stored.map { Entitlement($0, now: run.now).status },
                        transactionsBefore: stored?.transactions.count ?? 0)
    }

    /// The customer's history through `id`, applied; with an appAccountToken, Set App Account
    /// Token first where the purchases carry none, and the history read again after it.
    private func migrateHistory(of id: String, _ run: Run, _ progress: inout ReceiptMigrationProgress) throws {
        var history = try self.history(id, run, &progress)
        if let token = run.account.appAccountToken, let answeredBy = history.answeredBy {
            let missing = Self.originalIdsWithoutToken(history.transactions)
            for original in missing {
                _ = try client.setAppAccountToken(
                    originalTransactionId: original, request: UpdateAppAccountTokenRequest(appAccountToken: token),
                    environment: answeredBy)
                progress.appleRequests += 1
                try follow(original, run, &progress)
                progress.markTokenSet(original)
            }
            if !missing.isEmpty { history = try self.history(id, run, &progress) }
        }
        for transaction in history.transactions {
            progress.cover(byHistory: transaction)
            do {
                try apply(transaction, renewal: nil, origin: "history", run, &progress)
            } catch is EntitlementError {
                try refuse(transaction.originalTransactionId ?? id, Self.invalidTransaction, run, &progress)
            }
        }
    }

    /// Get All Subscription Statuses for `id`, each signed answer verified and applied.
    private func applyStatuses(of id: String, _ run: Run, _ progress: inout ReceiptMigrationProgress) throws {
        let answer: AppStoreAPIResponse<StatusResponse>
        do {
            answer = try client.getAllSubscriptionStatuses(transactionId: id, environment: run.environment, sandboxFallback: run.fallback)
        } catch {
            guard error.httpStatus == 404 else { throw error }
            progress.fail(id, ReportFailureCode.notFound.rawValue)
            return
        }
        progress.appleRequests += 1
        for item in (answer.value.data ?? []).flatMap({ $0.lastTransactions ?? [] }) {
            let subject = item.originalTransactionId ?? id
            progress.cover(byStatuses: subject)
            guard let signedTransaction = item.signedTransactionInfo else { continue }
            do {
                let transaction = try verifier.verifyTransaction(signedTransaction, now: run.now).payload
                let renewal = try item.signedRenewalInfo.map { try verifier.verifyRenewalInfo($0, now: run.now).payload }
                try apply(transaction, renewal: renewal, origin: "status", run, &progress)
            } catch {
                guard let code = Self.refusalCode(error) else { throw error }
                try refuse(subject, code, run, &progress)
            }
        }
    }

    /// `origin` tells the history's event from the statuses' one about the same transaction.
    private func apply(_ transaction: JWSTransactionDecodedPayload, renewal: JWSRenewalInfoDecodedPayload?, origin: String,
                       _ run: Run, _ progress: inout ReceiptMigrationProgress) throws {
        guard let id = transaction.originalTransactionId else { return }
        try follow(id, run, &progress)
        let event = AppleFact(factOrigin(origin, id), transaction: transaction, renewalInfo: renewal)
        // A purchase that carries another user's appAccountToken follows its token, not the request.
        var userId = run.account.userId
        if let token = transaction.appAccountToken, !token.isEmpty, let requested = userId,
           let owner = try repository.user(ofAppAccountToken: token), owner != requested {
            userId = nil
        }
        if try repository.apply(event, userId: userId).outcome == .applied {
            progress.countApplied(id)
        }
    }

    private func refuse(_ id: String, _ code: String, _ run: Run, _ progress: inout ReceiptMigrationProgress) throws {
        try follow(id, run, &progress)
        progress.fail(id, code)
        onRejected?(id, code)
    }

    /// The code a refused signed answer is noted with; nil for an error that stops the run.
    private static func refusalCode(_ error: any Error) -> String? {
        switch error {
        case let error as VerificationError: error.code
        case is DecodingError: invalidPayload
        case is EntitlementError: invalidTransaction
        default: nil
        }
    }

    /// Each followed id with its entitlement now, sorted by id.
    private func outcome(_ progress: ReceiptMigrationProgress, receiptIds: [String], _ run: Run) throws -> ReceiptMigrationOutcome {
        let subscriptions = try progress.ids.map { id -> ReceiptMigrationOutcome.Subscription in
            let state = progress.subjects[id] ?? ReceiptMigrationProgress.Subject()
            let record = try repository.record(run.subscription(id))
            let entitlement = record.map { Entitlement($0, now: run.now) }
            var linked: Bool?
            if let userId = run.account.userId, entitlement != nil {
                linked = try repository.subscriptions(ofUser: userId).contains(run.subscription(id))
            }
            return ReceiptMigrationOutcome.Subscription(
                originalTransactionId: id, productId: entitlement?.productId, status: entitlement?.status.rawValue,
                statusBefore: state.statusBefore?.rawValue, inReceipt: receiptIds.contains(id),
                eventsApplied: state.eventsApplied,
                transactionsAdded: max(0, (record?.transactions.count ?? 0) - state.transactionsBefore), linkedToUser: linked,
                appAccountTokenSet: state.appAccountTokenSet, failure: state.failure)
        }
        return ReceiptMigrationOutcome(subscriptions: subscriptions, appleRequests: progress.appleRequests)
    }

    // MARK: - History

    /// Every page of a customer's history, verified.
    private struct History {
        var transactions: [JWSTransactionDecodedPayload] = []
        /// The environment that answered; nil when Apple does not know the id.
        var answeredBy: AppStoreAPIEnvironment?
    }

    /// Reads every page (counted in `progress.appleRequests`). A signed transaction that fails
    /// verification or decoding is left out and noted on `id`.
    private func history(_ id: String, _ run: Run, _ progress: inout ReceiptMigrationProgress) throws -> History {
        var history = History(answeredBy: run.environment)
        var revision: String?
        var pages = 0
        repeat {
            let page: AppStoreAPIResponse<HistoryResponse>
            do {
                // Every page after the first goes to the environment that answered the first.
                page = try client.getTransactionHistory(
                    transactionId: id, revision: revision, request: TransactionHistoryRequest(sort: TransactionHistoryRequest.Order.ascending.rawValue),
                    environment: history.answeredBy ?? run.environment, sandboxFallback: pages == 0 && run.fallback)
            } catch {
                guard pages == 0, error.httpStatus == 404 else { throw error }
                progress.fail(id, ReportFailureCode.notFound.rawValue)
                progress.appleRequests += 1
                return History(answeredBy: nil)
            }
            pages += 1
            progress.appleRequests += 1
            history.answeredBy = page.environment
            for signed in page.value.signedTransactions ?? [] {
                do {
                    history.transactions.append(try verifier.verifyTransaction(signed, now: run.now).payload)
                } catch {
                    guard let code = Self.refusalCode(error) else { throw error }
                    progress.fail(id, code)
                    onRejected?(id, code)
                }
            }
            guard page.value.hasMore == true, let next = page.value.revision, next != revision else { break }
            revision = next
        } while true
        return history
    }

    /// The original transaction ids (not consumables) none of whose transactions carries an
    /// appAccountToken.
    static func originalIdsWithoutToken(_ transactions: [JWSTransactionDecodedPayload]) -> [String] {
        var withToken = Set<String>()
        var all = Set<String>()
        for transaction in transactions {
            guard let id = transaction.originalTransactionId, transaction.type != .consumable else { continue }
            all.insert(id)
            if let token = transaction.appAccountToken, !token.isEmpty { withToken.insert(id) }
        }
        return all.subtracting(withToken).sorted()
    }
}
