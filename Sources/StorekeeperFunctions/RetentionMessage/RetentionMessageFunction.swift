import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// `retention-message`: the Get Retention Message endpoint Apple calls, in real time, when a
/// subscriber views the subscription and may cancel it. Verifies Apple's signed request,
/// chooses the answer from the app's catalog rules and the customer's stored history (read
/// only; Apple is never called), signs a promotional offer when the answer has one, and
/// answers in Apple's response shape. Anything that keeps a rule's answer from being given,
/// in time or at all, answers the app's default message; only a request that does not verify
/// is refused.
///
/// https://developer.apple.com/documentation/retentionmessaging/get-retention-message
public final class RetentionMessageFunction: TypedFunction {
    /// [RealtimeRequestBody](https://developer.apple.com/documentation/retentionmessaging/realtimerequestbody)
    public struct Request: RequestBody {
        public enum CodingKeys: String, CodingKey, CaseIterable {
            case signedPayload
        }
        var signedPayload: String
    }

    public typealias Response = RealtimeResponseBody

    public static let descriptor = FunctionDescriptor(
        name: "retention-message",
        route: "/appstore/retention",
        method: "POST",
        visibility: .public,
        summary: "Answer Apple's realtime retention requests (Retention Messaging API) from the catalog's rules: a message, a switch-plan option or a signed promotional offer.",
        request: """
            {"signedPayload": "<compact JWS>"}   (exactly what Apple POSTs: a RealtimeRequestBody whose payload names
              originalTransactionId, appAppleId, productId, userLocale, requestIdentifier, environment, signedDate)
            """,
        response: """
            200 one of (Apple's RealtimeResponseBody):
                {"message": {"messageIdentifier"}}
                {"alternateProduct": {"messageIdentifier", "productId"}}
                {"promotionalOffer": {"messageIdentifier", "promotionalOfferSignatureV2": "<JWS>"}}
                {"promotionalOffer": {"messageIdentifier", "promotionalOfferSignatureV1":
                   {"encodedSignature", "productId", "nonce", "timestamp", "keyId", "offerIdentifier"}}}
                The first of the app's catalog rules (apps[].retention.rules) whose products, locales and
                history conditions hold answers; the app's default message answers when none does, a rule
                cannot be evaluated (no record of the subscription), the store fails, the offer key is
                missing or the time budget (retention.timeBudgetMilliseconds, default 250) runs out.
                An app without a retention section answers {} (Apple shows its own default message).
            400 {"error": {"code": "INVALID_JWT_FORMAT" | "INVALID_CERTIFICATE" | "VERIFICATION_FAILURE" |
                           "INVALID_APP_IDENTIFIER" | "INVALID_ENVIRONMENT", ...}}   exit 65: not Apple's request,
                or for an app this deployment does not serve (by appAppleId); Apple then shows its default message
            503 RETRYABLE_VERIFICATION_FAILURE (online checks under the hard policy)   exit 75
            """,
        variables: AppStoreSettings.variables + OfferKeySettings.optionalVariables
    )

    let context: FunctionContext
    let catalog: Catalog
    private let verifier: SignedDataVerifier
    /// Nil when no key is configured: offers then answer the default message.
    let keys: OfferKeySettings?

    public init(context: FunctionContext) throws {
        self.context = context
        let settings = try AppStoreSettings(environment: context.environment)
        catalog = settings.catalog
        verifier = settings.makeVerifier(adapters: context.adapters, log: context.log)
        keys = try OfferKeySettings(ifConfiguredIn: context.environment)
    }

    public func handle(_ request: Request, call: FunctionRequest) throws -> Reply<Response> {
        let started = ContinuousClock.now
        let verified: Verified<DecodedRealtimeRequestBody>
        do {
            verified = try verifier.verifyRealtimeRequest(request.signedPayload, now: context.clock.now())
        } catch let error as VerificationError {
            context.log.warning("retention_request_rejected", ["code": error.code, "reason": error.reason])
            throw error
        } catch {
            context.log.warning("retention_request_rejected", ["code": "INVALID_JWT_FORMAT", "reason": "\(error)"])
            throw VerificationError(.invalidJWTFormat, "the realtime request does not read as Apple documents it")
        }
        context.log.onlineCheck(verified.revocation)
        let realtime = verified.payload
        guard let app = verified.signed.bundleId.flatMap(catalog.app(bundleId:)), let retention = app.retention else {
            context.log.warning("retention_not_configured", ["appAppleId": realtime.appAppleId.map(String.init) ?? "-"])
            return Reply(RealtimeResponseBody())
        }
        let budget = Duration.milliseconds(retention.timeBudgetMilliseconds)
        let overBudget = { ContinuousClock.now - started > budget }
        let choice = RetentionChoice(retention: retention)
        var decision = choice.decide(realtime, history: { history(of: realtime, app: app) }, overBudget: overBudget)
        let body: RealtimeResponseBody
        (body, decision) = answer(decision, to: realtime, app: app, choice: choice, overBudget: overBudget)
        log(decision, realtime, app: app, elapsed: ContinuousClock.now - started)
        return Reply(body)
    }

    /// The subscription's record, found as get-customer finds it by original transaction id.
    private func history(of request: DecodedRealtimeRequestBody, app: CatalogApp) -> RetentionHistory.Lookup {
        do {
            let lookup = CustomerLookup(store: try context.adapters.store())
            let source = try lookup.source(of: .originalTransactionId(request.originalTransactionId), apps: [app.bundleId])
            guard let stored = source?.records.first(where: {
                $0.bundleId == app.bundleId && $0.record.originalTransactionId == request.originalTransactionId
            }) else { return .notFound }
            return .found(RetentionHistory(record: stored.record))
        } catch let error as StoreError {
            context.log.error("store_failed", ["code": error.code, "reason": error.reason])
            return .storeFailed(error.code)
        } catch {
            return .storeFailed("the record does not read: \(error)")
        }
    }

    private func log(_ decision: RetentionChoice.Decision, _ request: DecodedRealtimeRequestBody, app: CatalogApp,
                     elapsed: Duration) {
        var fields: [String: any LogFieldValue] = [
            "bundleId": app.bundleId, "product": request.productId, "requestIdentifier": request.requestIdentifier,
            "answer": decision.answer.kind, "rule": decision.rule ?? "default",
            "elapsedMs": elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000,
        ]
        if let fallback = decision.fallback { fields["fallback"] = fallback.rawValue }
        if let detail = decision.detail { fields["detail"] = detail }
        context.log.info("retention_answered", fields)
    }
}
