import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// `app-store-api`: one App Store Server API call per request, named as Apple's server
/// libraries name their methods, answering Apple's JSON with (on request) every signed field
/// verified and decoded, and (on request) every page followed to the end.
public final class AppStoreAPIFunction: TypedFunction {
    /// Pages followed at most by `allPages` (20 items a page: 20,000 transactions).
    static let maximumPages = 1000

    public static let descriptor = FunctionDescriptor(
        name: "app-store-api",
        route: "/appstore/api",
        method: "POST",
        visibility: .internal,
        summary: "Call one App Store Server API endpoint (Apple's method names), with retries, paging and decoded signed fields.",
        request: """
            {"operation": "<name>", "bundleId": "...", "environment": "Production" | "Sandbox" (default Production),
             "<identifier>": "...", "query": {...}, "body": {...}, "allPages": false, "decode": false,
             "sandboxFallback": true}
              \(AppStoreAPISettings.bundleIdHelp).
              sandboxFallback (default: on when the app accepts Sandbox data): a production
              "not found" for a lookup by transaction id is asked of the sandbox.
              decode (needs APPSTORE_ROOT_CERTS): each signed field gets its verified payload next
              to it (signedTransactions → transactions, signedTransactionInfo → transactionInfo,
              signedRenewalInfo → renewalInfo, signedPayload → payload, signedAppTransactionInfo →
              appTransactionInfo).
              allPages: follow revision / paginationToken until hasMore is false.
            Operations (* = required body field; dates are milliseconds since 1970):
            \(AppStoreAPIOperationSpec.helpText)
            """,
        response: """
            {"operation": "...", "bundleId": "...", "environment": "Production" | "Sandbox" (which one answered),
             "attempts": n, "pages": n (allPages), "response": {Apple's JSON, decoded fields added}}
            Apple's errors: {"error": {"code": "<Apple's name, e.g. TransactionIdNotFoundError>",
              "message", "errorCode": 4040010, "httpStatus": 404, "retryable": false, "attempts": n}}
              retryable (429, 5xx, timeouts, connection failures): HTTP 503, exit 75;
              not found: 404, exit 65; other refusals: 400, exit 65;
              api_token_refused (Apple refused the token): 502, exit 78; invalid_response (an answer
              that is not Apple's JSON): 502, exit 69. Every code: the README's error table.
            Bad requests: invalid_request / unknown_operation / unknown_parameter (400, exit 65).
            """,
        variables: AppStoreAPISettings.apiVariables
    )

    private let settings: AppStoreAPISettings
    private let context: FunctionContext
    private lazy var verifier: SignedDataVerifier? = settings.verification?.makeVerifier(adapters: context.adapters, log: context.log)

    public init(context: FunctionContext) throws {
        settings = try AppStoreAPISettings(environment: context.environment)
        self.context = context
    }

    public func handle(_ request: Request, call _: FunctionRequest) throws -> Reply<Response> {
        let spec = try request.spec()
        let app = try settings.catalog.app(requested: request.bundleId)
        let environment = try AppStoreAPISettings.environment(request.environment)
        let parameters = try request.parameters(for: spec)
        let decode = request.decode ?? false
        if decode && verifier == nil {
            throw FunctionError.configuration("\(StorekeeperSettings.rootCertificates.name) is not set: \"decode\" needs the trusted roots to verify signed fields")
        }
        let fallback = request.sandboxFallback ?? settings.sandboxFallback(for: app)
        let call = try AppStoreAPICall(spec: spec, parameters: parameters)

        let pages: Pages
        var response: JSONValue
        do {
            pages = try send(call, app: app, environment: environment, sandboxFallback: fallback && spec.lookup,
                             allPages: request.allPages == true)
        } catch let error as AppStoreAPIError {
            context.log.warning("app_store_api_failed", ["operation": spec.name, "code": error.code, "attempts": String(error.attempts)])
            return .failed(error)
        }
        do {
            response = try call.merge(pages.bodies)
        } catch let error as AppStoreAPIError {
            // A 2xx body that is not the documented JSON: Apple's fault, answered as documented.
            context.log.warning("app_store_api_answer_unreadable", ["operation": spec.name, "code": error.code])
            return .failed(error)
        }
        if decode, let verifier {
            var decoder = SignedFieldDecoder(verifier: verifier, now: context.clock.now())
            response = decoder.decode(response)
            if decoder.failures > 0 {
                context.log.warning("signed_fields_rejected", ["count": String(decoder.failures)])
            }
        }
        return Reply(.answered(Answer(
            operation: spec.name, bundleId: app.bundleId, environment: pages.answeredBy.rawValue, attempts: pages.attempts,
            pages: request.allPages == true ? pages.bodies.count : nil, response: response)))
    }

    /// What the pages of one call brought back.
    private struct Pages {
        var bodies: [[UInt8]] = []
        var answeredBy: AppStoreAPIEnvironment
        var attempts = 0
    }

    /// The first page, and with `allPages` every next one (at most `maximumPages`, never the
    /// same cursor twice). An error carries the attempts of the whole call.
    private func send(_ call: AppStoreAPICall, app: CatalogApp, environment: AppStoreAPIEnvironment, sandboxFallback: Bool,
                      allPages: Bool) throws -> Pages {
        let client = try settings.makeClient(context: context, app: app)
        var pages = Pages(answeredBy: environment)
        var cursor: String? = call.initialCursor
        var seen: Set<String> = []
        do {
            repeat {
                let answer = try client.send(call.operation(cursor: cursor), environment: environment, sandboxFallback: sandboxFallback)
                pages.bodies.append(answer.body)
                pages.answeredBy = answer.environment
                pages.attempts += answer.attempts
                cursor = nil
                if allPages, let next = try call.nextCursor(answer.body), !seen.contains(next) {
                    seen.insert(next)
                    cursor = next
                }
            } while cursor != nil && pages.bodies.count < Self.maximumPages
        } catch var error as AppStoreAPIError {
            error.attempts += pages.attempts
            throw error
        }
        return pages
    }
}
