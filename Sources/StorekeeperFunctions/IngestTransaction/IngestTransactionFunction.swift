import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// `ingest-transaction`: the app's backend hands over a StoreKit 2 signed transaction right
/// after a purchase (so access does not wait for Apple's notification). Verified, linked to
/// the user, applied through the same entitlement logic as notifications.
public final class IngestTransactionFunction: FunctionHandler {
    struct Request: RequestBody {
        enum CodingKeys: String, CodingKey, CaseIterable {
            case jwsRepresentation, signedTransaction, signedRenewalInfo, userId
        }
        /// StoreKit 2's `Transaction.jwsRepresentation` (also accepted as `signedTransaction`).
        var jwsRepresentation: String?
        var signedTransaction: String?
        var signedRenewalInfo: String?
        var userId: String?
    }

    struct Response: Encodable {
        var outcome: String
        var userId: String?
        var active: Bool
        var entitlements: [Entitlement]
    }

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

    private let verifier: SignedDataVerifier
    private let context: FunctionContext
    /// The entitlements of each user this process has answered for, by original transaction
    /// id: read from the store on the user's first line, then kept up to date with each line's
    /// own record, so `active` stays the user's without reading all of them on every line.
    private var entitlementsByUser: [String: [String: Entitlement]] = [:]

    public init(context: FunctionContext) throws {
        verifier = try AppStoreSettings(environment: context.environment).makeVerifier(adapters: context.adapters, log: context.log)
        self.context = context
    }

    public func handle(_ request: FunctionRequest) throws -> FunctionResponse {
        let body = try request.decode(Request.self)
        guard let jws = body.jwsRepresentation ?? body.signedTransaction else {
            throw FunctionError.badInput(code: .invalidRequest, message: "jwsRepresentation is required")
        }
        let now = context.clock.now()
        let transaction = try verifier.verify(jws, as: .transaction, now: now).decode(JWSTransactionDecodedPayload.self)
        var renewal: JWSRenewalInfoDecodedPayload?
        if let signed = body.signedRenewalInfo {
            renewal = try verifier.verify(signed, as: .renewalInfo, now: now).decode(JWSRenewalInfoDecodedPayload.self)
            guard renewal?.originalTransactionId == transaction.originalTransactionId else {
                throw FunctionError.badInput(code: .invalidRequest, message: "the renewal info is for another subscription")
            }
        }
        let signedDate = transaction.signedDate ?? now.millisecondsSince1970
        let event = EntitlementEvent(
            id: "ingest:\(transaction.transactionId ?? "?"):\(signedDate)", source: .ingest,
            signedDate: signedDate, transaction: transaction, renewalInfo: renewal)

        let repository = EntitlementRepository(store: try context.adapters.store())
        var userId = body.userId
        if let user = userId, let token = transaction.appAccountToken, !token.isEmpty {
            // The backend vouches for this user; the token becomes theirs if it was nobody's.
            if try !repository.assign(appAccountToken: token, toUser: user) {
                context.log.warning("appAccountToken belongs to another user", ["originalTransactionId": transaction.originalTransactionId ?? "-"])
            }
        } else if userId == nil, let token = transaction.appAccountToken {
            userId = try repository.user(ofAppAccountToken: token)
        }
        let update = try repository.apply(event, userId: body.userId)
        context.log.info("transaction ingested", ["outcome": update.outcome.rawValue, "originalTransactionId": transaction.originalTransactionId ?? "-"])

        // This transaction's subscription only, as it stands after the event (the record
        // `apply` wrote or found): reading every one of the user's would make a batch quadratic.
        let entitlements = update.record.map { [Entitlement($0, now: now)] } ?? []
        var active = entitlements.contains { $0.active }
        if let userId {
            var known = try entitlementsByUser[userId] ?? userEntitlements(userId, repository: repository, now: now)
            for entitlement in entitlements { known[entitlement.originalTransactionId] = entitlement }
            entitlementsByUser[userId] = known
            active = known.values.contains { $0.active }
        }
        return try .json(Response(outcome: update.outcome.rawValue, userId: userId, active: active, entitlements: entitlements))
    }

    private func userEntitlements(_ userId: String, repository: EntitlementRepository, now: Date) throws -> [String: Entitlement] {
        var entitlements: [String: Entitlement] = [:]
        for id in try repository.originalTransactionIds(ofUser: userId) {
            if let record = try repository.record(id) { entitlements[id] = Entitlement(record, now: now) }
        }
        return entitlements
    }
}
