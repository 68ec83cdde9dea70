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
    private let clock: any Clock
    private let sandboxFallback: Bool

    /// Called when Apple's signed answer about an id is refused (it is not applied): it fails
    /// verification (its VerificationError code), does not decode (`invalidPayload`), or
    /// cannot be applied (`invalidTransaction`).
    public var onRejected: ((String, String) -> Void)?

    /// The failure of a signed answer that verified but does not decode as its model.
    public static let invalidPayload = ReportFailureCode.invalidPayload.rawValue
    /// The failure of a transaction that decoded but cannot be applied (no transactionId, ...).
    public static let invalidTransaction = "INVALID_TRANSACTION"

    public init(client: AppStoreServerAPIClient, verifier: SignedDataVerifier, store: any KeyValueStore,
                clock: any Clock, sandboxFallback: Bool) {
        self.client = client
        self.verifier = verifier
        self.repository = EntitlementRepository(store: store)
        self.clock = clock
        self.sandboxFallback = sandboxFallback
    }

    /// One original transaction id's progress through a run.
    private struct Progress {
        var statusBefore: EntitlementStatus?
        var hadRecord: Bool
        var eventsApplied = 0
        var appAccountTokenSet = false
        var failure: String?
    }

    /// Throws `AppStoreAPIError` when Apple cannot answer (retryable: rerun) or refuses the
    /// API key, and `StoreError` when the store fails. A signed answer that is refused (see
    /// `onRejected`) is noted as its id's `failure` and the run goes on: a rerun would stop at
    /// the same answer.
    public func migrate(_ receipt: AppReceipt, environment: String, account: ReceiptMigrationAccount) throws -> ReceiptMigrationOutcome {
        let now = clock.now()
        let apiEnvironment: AppStoreAPIEnvironment = environment == "Sandbox" ? .sandbox : .production
        let fallback = apiEnvironment == .production && sandboxFallback
        let receiptIds = receipt.originalTransactionIds
        var progress: [String: Progress] = [:]
        var requests = 0

        func note(_ id: String) throws {
            guard progress[id] == nil else { return }
            let record = try repository.record(id)
            progress[id] = Progress(statusBefore: record.map { Entitlement($0, now: now).status }, hadRecord: record != nil)
        }

        /// `origin` tells the history's event from the statuses' one about the same transaction.
        func apply(_ transaction: JWSTransactionDecodedPayload, renewal: JWSRenewalInfoDecodedPayload?, origin: String) throws {
            guard let id = transaction.originalTransactionId else { return }
            try note(id)
            let signedDate = max(transaction.signedDate ?? 0, renewal?.signedDate ?? 0)
            let event = EntitlementEvent(
                id: "migrate:\(origin):\(transaction.transactionId ?? id):\(signedDate)", source: .reconciliation,
                signedDate: signedDate, transaction: transaction, renewalInfo: renewal)
            // A purchase that carries another user's appAccountToken follows its token, not the request.
            var userId = account.userId
            if let token = transaction.appAccountToken, !token.isEmpty, let requested = userId,
               let owner = try repository.user(ofAppAccountToken: token), owner != requested {
                userId = nil
            }
            if try repository.apply(event, userId: userId).outcome == .applied {
                progress[id]?.eventsApplied += 1
            }
        }

        func refuse(_ id: String, _ code: String) throws {
            try note(id)
            progress[id]?.failure = code
            onRejected?(id, code)
        }

        var coveredByHistory = Set<String>()
        var coveredByStatuses = Set<String>()
        var subscriptions = Set<String>()
        for id in receiptIds {
            try note(id)
            if !coveredByHistory.contains(id) {
                var (transactions, answeredBy, pages) = try history(id, environment: apiEnvironment, fallback: fallback, progress: &progress)
                requests += pages
                if let token = account.appAccountToken, answeredBy != nil {
                    let missing = Self.originalIdsWithoutToken(transactions)
                    for original in missing {
                        _ = try client.setAppAccountToken(
                            originalTransactionId: original, request: UpdateAppAccountTokenRequest(appAccountToken: token),
                            environment: answeredBy ?? apiEnvironment)
                        requests += 1
                        try note(original)
                        progress[original]?.appAccountTokenSet = true
                    }
                    if !missing.isEmpty {
                        (transactions, answeredBy, pages) = try history(id, environment: apiEnvironment, fallback: fallback, progress: &progress)
                        requests += pages
                    }
                }
                for transaction in transactions {
                    if let original = transaction.originalTransactionId {
                        coveredByHistory.insert(original)
                        if transaction.type == .autoRenewableSubscription { subscriptions.insert(original) }
                    }
                    do {
                        try apply(transaction, renewal: nil, origin: "history")
                    } catch is EntitlementError {
                        try refuse(transaction.originalTransactionId ?? id, Self.invalidTransaction)
                    }
                }
            }
            // Get All Subscription Statuses brings the renewal info (billing retry, grace,
            // auto-renew), which the history does not have.
            guard subscriptions.contains(id), !coveredByStatuses.contains(id) else { continue }
            let answer: AppStoreAPIResponse<StatusResponse>
            do {
                answer = try client.getAllSubscriptionStatuses(transactionId: id, environment: apiEnvironment, sandboxFallback: fallback)
            } catch {
                guard error.httpStatus == 404 else { throw error }
                progress[id]?.failure = ReportFailureCode.notFound.rawValue
                continue
            }
            requests += 1
            for item in (answer.value.data ?? []).flatMap({ $0.lastTransactions ?? [] }) {
                let subject = item.originalTransactionId ?? id
                coveredByStatuses.insert(subject)
                guard let signedTransaction = item.signedTransactionInfo else { continue }
                do {
                    let transaction = try verifier.verify(signedTransaction, as: .transaction, now: now).decode(JWSTransactionDecodedPayload.self)
                    let renewal = try item.signedRenewalInfo.map {
                        try verifier.verify($0, as: .renewalInfo, now: now).decode(JWSRenewalInfoDecodedPayload.self)
                    }
                    try apply(transaction, renewal: renewal, origin: "status")
                } catch let error as VerificationError {
                    try refuse(subject, error.code)
                } catch is DecodingError {
                    try refuse(subject, Self.invalidPayload)
                } catch is EntitlementError {
                    try refuse(subject, Self.invalidTransaction)
                }
            }
        }

        let outcomes = try progress.keys.sorted().map { id -> ReceiptMigrationOutcome.Subscription in
            let state = progress[id] ?? Progress(statusBefore: nil, hadRecord: false)
            let entitlement = try repository.record(id).map { Entitlement($0, now: now) }
            var linked: Bool?
            if let userId = account.userId, entitlement != nil {
                linked = try repository.originalTransactionIds(ofUser: userId).contains(id)
            }
            return ReceiptMigrationOutcome.Subscription(
                originalTransactionId: id, productId: entitlement?.productId, status: entitlement?.status.rawValue,
                statusBefore: state.statusBefore?.rawValue, inReceipt: receiptIds.contains(id),
                eventsApplied: state.eventsApplied, linkedToUser: linked,
                appAccountTokenSet: state.appAccountTokenSet, failure: state.failure)
        }
        return ReceiptMigrationOutcome(subscriptions: outcomes, appleRequests: requests)
    }

    /// Every page of the customer's history, verified: the transactions, the environment that
    /// answered (nil when Apple does not know the id) and the number of pages read. A signed
    /// transaction that fails verification is left out and noted on its id.
    private func history(_ id: String, environment: AppStoreAPIEnvironment, fallback: Bool,
                         progress: inout [String: Progress]) throws -> ([JWSTransactionDecodedPayload], AppStoreAPIEnvironment?, Int) {
        let now = clock.now()
        var transactions: [JWSTransactionDecodedPayload] = []
        var revision: String?
        var pages = 0
        var answeredBy = environment
        repeat {
            let page: AppStoreAPIResponse<HistoryResponse>
            do {
                // Every page after the first goes to the environment that answered the first.
                page = try client.getTransactionHistory(
                    transactionId: id, revision: revision, request: TransactionHistoryRequest(sort: TransactionHistoryRequest.Order.ascending.rawValue),
                    environment: answeredBy, sandboxFallback: pages == 0 && fallback)
            } catch {
                guard pages == 0, error.httpStatus == 404 else { throw error }
                progress[id]?.failure = ReportFailureCode.notFound.rawValue
                return ([], nil, 1)
            }
            pages += 1
            answeredBy = page.environment
            for signed in page.value.signedTransactions ?? [] {
                do {
                    transactions.append(try verifier.verify(signed, as: .transaction, now: now).decode(JWSTransactionDecodedPayload.self))
                } catch let error as VerificationError {
                    progress[id]?.failure = error.code
                    onRejected?(id, error.code)
                } catch is DecodingError {
                    progress[id]?.failure = Self.invalidPayload
                    onRejected?(id, Self.invalidPayload)
                }
            }
            guard page.value.hasMore == true, let next = page.value.revision, next != revision else { break }
            revision = next
        } while true
        return (transactions, answeredBy, pages)
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
