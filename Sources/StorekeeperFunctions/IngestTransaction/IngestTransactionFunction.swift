import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// `ingest-transaction`: the app's backend hands over a StoreKit 2 signed transaction right
/// after a purchase (so access does not wait for Apple's notification). Verified, linked to
/// the user, applied through the same entitlement logic as notifications.
public final class IngestTransactionFunction: TypedFunction {
    public struct Request: RequestBody {
        public enum CodingKeys: String, CodingKey, CaseIterable {
            case jwsRepresentation, signedTransaction, signedRenewalInfo, userId
        }
        /// StoreKit 2's `Transaction.jwsRepresentation` (also accepted as `signedTransaction`).
        var jwsRepresentation: String?
        var signedTransaction: String?
        var signedRenewalInfo: String?
        var userId: String?
    }

    public typealias Response = TransactionIngest.Outcome

    public static let descriptor = FunctionDescriptor(
        name: "ingest-transaction",
        route: "/appstore/transactions",
        method: "POST",
        visibility: .internal,
        summary: "Verify a StoreKit 2 signed transaction from the app's backend, link it to the user, apply it, answer the entitlement of its subscription.",
        request: """
            {"jwsRepresentation": "<signed transaction>", "signedRenewalInfo": "<optional>", "userId": "<optional>"}
              A transaction carrying an appAccountToken is linked to the token's user even without userId.
            """,
        response: """
            {"outcome": "applied" | "stale" | "duplicate" | "ignored", "userId": "...", "active": true,
             "entitlements": [... as get-entitlements ...]}
              entitlements: the entitlement of this transaction's subscription (none when it grants
              none, e.g. a consumable), not every one of the user's: repeated on every line, a batch
              of one user's n transactions (NDJSON) would answer n²/2 entitlements. The user's whole
              state is get-entitlements' answer.
              active: whether the user (with a userId, given or found by appAccountToken) has any
              active entitlement now, as before; without a user, whether this subscription is
              active. In a batch the user's records are read once, on the user's first line.
            rejected signed data: {"error": {"code": "VERIFICATION_FAILURE" | ..., "message"}} exit 65
            """,
        variables: AppStoreSettings.variables
    )

    private let context: FunctionContext
    private let verifier: SignedDataVerifier
    /// The apps' products and transfer policies (whose purchases move when one arrives for another user).
    private let catalog: Catalog
    /// Kept for one input: a batch (NDJSON) reads each user's records once. A long-running
    /// process (FastCGI) starts afresh with every request, so it never answers from records
    /// another process has changed since.
    private var ingest: TransactionIngest
    /// Deferred: relayed when the input is answered (`inputEnded`).
    private let events: EventRecording

    public init(context: FunctionContext) throws {
        let settings = try AppStoreSettings(environment: context.environment)
        verifier = settings.makeVerifier(adapters: context.adapters, log: context.log)
        catalog = settings.catalog
        ingest = TransactionIngest(verifier: verifier, catalog: catalog)
        self.context = context
        events = EventRecording.of(context, catalog: catalog, deferred: true)
    }

    /// The input's events are relayed once it is answered: a batch reads each customer's state
    /// once, and a FastCGI request's answer is not held up by it.
    public func inputEnded() {
        ingest = TransactionIngest(verifier: verifier, catalog: catalog)
        if let store = try? context.adapters.store() { events.flush(store: store) }
    }

    public func handle(_ request: Request, call: FunctionRequest) throws -> Reply<Response> {
        guard let jws = request.jwsRepresentation ?? request.signedTransaction else {
            throw FunctionError.badInput(code: .invalidRequest, message: "jwsRepresentation is required")
        }
        let now = context.clock.now()
        let purchase = try ingest.verify(signedTransaction: jws, signedRenewalInfo: request.signedRenewalInfo, now: now)
        let transfers = TransferContext(catalog: catalog, actor: SupportWiring.actor(of: call), date: now.millisecondsSince1970)
        let repository = EntitlementRepository(store: try context.adapters.store(), transfers: transfers,
                                               events: events)
        let outcome = try ingest.apply(purchase, userId: request.userId, to: repository, now: now)
        let originalTransactionId = purchase.transaction.originalTransactionId ?? "-"
        if outcome.appAccountTokenOfAnotherUser {
            context.log.warning("app_account_token_of_another_user", ["originalTransactionId": originalTransactionId])
        }
        context.log.info("transaction_ingested", ["outcome": outcome.outcome.rawValue, "originalTransactionId": originalTransactionId])
        return Reply(outcome)
    }
}
