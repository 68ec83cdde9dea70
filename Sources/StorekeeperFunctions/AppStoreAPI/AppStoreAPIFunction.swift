import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// `app-store-api`: one App Store Server API call per request, named as Apple's server
/// libraries name their methods, answering Apple's JSON with (on request) every signed field
/// verified and decoded, and (on request) every page followed to the end.
public final class AppStoreAPIFunction: FunctionHandler {
    struct Request: RequestBody {
        enum CodingKeys: String, CodingKey, CaseIterable {
            case operation, environment, sandboxFallback, transactionId, originalTransactionId, orderId
            case testNotificationToken, productId, requestIdentifier, query, body, allPages, decode
        }
        var operation: String
        var environment: String?
        var sandboxFallback: Bool?
        var transactionId: String?
        var originalTransactionId: String?
        var orderId: String?
        var testNotificationToken: String?
        var productId: String?
        var requestIdentifier: String?
        var query: [String: JSONValue]?
        var body: [String: JSONValue]?
        var allPages: Bool?
        var decode: Bool?

        func identifier(_ name: String) -> String? {
            switch name {
            case "transactionId": transactionId
            case "originalTransactionId": originalTransactionId
            case "orderId": orderId
            case "testNotificationToken": testNotificationToken
            case "productId": productId
            case "requestIdentifier": requestIdentifier
            default: nil
            }
        }
    }

    /// Pages followed at most by `allPages` (20 items a page: 20,000 transactions).
    static let maximumPages = 1000

    public static let descriptor = FunctionDescriptor(
        name: "app-store-api",
        route: "/appstore/api",
        method: "POST",
        visibility: .internal,
        summary: "Call one App Store Server API endpoint (Apple's method names), with retries, paging and decoded signed fields.",
        request: """
            {"operation": "<name>", "environment": "Production" | "Sandbox" (default Production),
             "<identifier>": "...", "query": {...}, "body": {...}, "allPages": false, "decode": false,
             "sandboxFallback": true}
              sandboxFallback (default: on when APPSTORE_ENVIRONMENT accepts Sandbox): a production
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
            {"operation": "...", "environment": "Production" | "Sandbox" (which one answered),
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

    public func handle(_ request: FunctionRequest) throws -> FunctionResponse {
        let body = try request.decode(Request.self)
        guard let spec = AppStoreAPIOperationSpec.named(body.operation) else {
            throw FunctionError.badInput(code: .unknownOperation,
                                         message: "unknown operation \(body.operation); one of: \(AppStoreAPIOperationSpec.all.map(\.name).joined(separator: ", "))")
        }
        let environment = try AppStoreAPISettings.environment(body.environment)
        var identifiers: [String: String] = [:]
        for name in spec.identifiers {
            guard let value = body.identifier(name), !value.isEmpty else {
                throw FunctionError.badInput(message: "\(spec.name) needs \"\(name)\"")
            }
            identifiers[name] = value
        }
        for name in ["transactionId", "originalTransactionId", "orderId", "testNotificationToken", "productId", "requestIdentifier"]
        where body.identifier(name) != nil && !spec.identifiers.contains(name) {
            throw FunctionError.badInput(code: .unknownParameter, message: "\(spec.name) takes no \"\(name)\"")
        }
        let query = body.query ?? [:]
        for name in query.keys where !spec.query.contains(name) {
            throw FunctionError.badInput(code: .unknownParameter,
                                         message: "\(spec.name) takes no query parameter \"\(name)\"" + (spec.query.isEmpty ? "" : "; it takes \(spec.query.joined(separator: ", "))"))
        }
        if body.body != nil && spec.body.isEmpty {
            throw FunctionError.badInput(code: .unknownParameter, message: "\(spec.name) takes no body")
        }
        let requestBody = body.body ?? [:]
        for name in requestBody.keys where !spec.body.contains(name) {
            throw FunctionError.badInput(code: .unknownParameter, message: "\(spec.name) takes no body field \"\(name)\"; it takes \(spec.body.joined(separator: ", "))")
        }
        for name in spec.requiredBody where requestBody[name] == nil || requestBody[name] == .null {
            throw FunctionError.badInput(message: "\(spec.name) needs body field \"\(name)\"")
        }
        if body.allPages == true, case .none = spec.paging {
            throw FunctionError.badInput(message: "\(spec.name) has no pages; allPages applies to getTransactionHistory, getRefundHistory and getNotificationHistory")
        }
        let decode = body.decode ?? false
        if decode && verifier == nil {
            throw FunctionError.configuration("APPSTORE_ROOT_CERTS is not set: \"decode\" needs the trusted roots to verify signed fields")
        }
        let fallback = body.sandboxFallback ?? settings.acceptedEnvironments.contains("Sandbox")
        let call = try AppStoreAPICall(spec: spec, identifiers: identifiers, query: query, body: requestBody)

        let client = try settings.makeClient(context: context)
        var pages: [[UInt8]] = []
        var answeredBy = environment
        var attempts = 0
        var cursor: String? = call.initialCursor
        var seen: Set<String> = []
        do {
            repeat {
                let answer = try client.send(call.operation(cursor: cursor), environment: environment,
                                             sandboxFallback: fallback && spec.lookup)
                pages.append(answer.body)
                answeredBy = answer.environment
                attempts += answer.attempts
                cursor = nil
                if body.allPages == true, let next = try call.nextCursor(answer.body), !seen.contains(next) {
                    seen.insert(next)
                    cursor = next
                }
            } while cursor != nil && pages.count < Self.maximumPages
        } catch let error as AppStoreAPIError {
            context.log.warning("App Store Server API call failed",
                                ["operation": spec.name, "code": error.code, "attempts": String(error.attempts + attempts)])
            var total = error
            total.attempts += attempts
            throw total
        }

        var response: JSONValue
        do {
            response = try call.merge(pages)
        } catch let error as AppStoreAPIError {
            // A 2xx body that is not the documented JSON: Apple's fault, answered as documented.
            context.log.warning("App Store Server API answer unreadable", ["operation": spec.name, "code": error.code])
            throw error
        }
        if decode, let verifier {
            var decoder = SignedFieldDecoder(verifier: verifier, now: context.clock.now())
            response = decoder.decode(response)
            if decoder.failures > 0 {
                context.log.warning("signed fields failed verification", ["count": String(decoder.failures)])
            }
        }
        var answer = JSONObjectBuilder()
        answer.add("operation", spec.name)
        answer.add("environment", answeredBy.rawValue)
        answer.add("attempts", rawJSON: Array(String(attempts).utf8))
        if body.allPages == true { answer.add("pages", rawJSON: Array(String(pages.count).utf8)) }
        try answer.add("response", encoding: response)
        return FunctionResponse(status: 200, body: answer.build())
    }
}
