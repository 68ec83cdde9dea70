import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// `my-entitlements`: for an app signed in with Sign in with Apple and no backend of its
/// own. The app sends its session token (siwa-native's `sessionToken`) and gets its own
/// user's customer answer, nothing about anyone else: the user is the session's, never a
/// field of the request.
public final class MyEntitlementsFunction: TypedFunction {
    public struct Request: RequestBody {
        public enum CodingKeys: String, CodingKey, CaseIterable {
            case sessionToken, bundleId
        }
        /// Direct mode only (a shell has no headers); over HTTP the token comes as a bearer token.
        var sessionToken: String?
        var bundleId: String?
    }

    public typealias Response = GetCustomerFunction.Response

    public static let descriptor = FunctionDescriptor(
        name: "my-entitlements",
        route: "/me/entitlements",
        method: "GET",
        visibility: .public,
        summary: "Answer the signed-in user's own customer answer, for apps without a backend.",
        request: """
            over HTTP: GET /me/entitlements with Authorization: Bearer <siwa-native's sessionToken>;
              optional ?bundleId=... (only that app's purchases and grants)
            direct: {"sessionToken": "...", "bundleId"?}
            """,
        response: """
            {"customer": {...}} exactly as get-customer answers it for the session's user (a user without
            purchases has empty entitlements). No, an ended or an expired session: invalid_session, HTTP 401, exit 65.
            """,
        variables: CustomerAnswering.variables
    )

    private let context: FunctionContext
    private let answering: CustomerAnswering

    public init(context: FunctionContext) throws {
        self.context = context
        answering = try CustomerAnswering(environment: context.environment)
    }

    public func handle(_ request: Request, call: FunctionRequest) throws -> Reply<Response> {
        let token = Self.bearerToken(call.header("authorization")) ?? (call.frontDoor.isHTTP ? nil : request.sessionToken)
        guard let token, !token.isEmpty else {
            throw FunctionError.unauthorized(code: .invalidSession, message: "send the session token as Authorization: Bearer <sessionToken>")
        }
        let store = try context.adapters.store()
        let now = context.clock.now()
        guard let session = try SessionRepository(store: store).session(id: token, now: now) else {
            throw FunctionError.unauthorized(code: .invalidSession, message: "no open session with this token (ended, expired or never opened)")
        }
        if let bundleId = request.bundleId, answering.catalog.app(bundleId: bundleId) == nil {
            throw FunctionError.badInput(message: "bundleId names no app of this deployment")
        }
        let answer = try answering.answer(.user(session.userId), bundleId: request.bundleId, store: store, now: now)
            ?? CustomerAnswer(of: .init(userId: session.userId, records: []), catalog: answering.catalog,
                              now: now.millisecondsSince1970)
        return Reply(GetCustomerFunction.Response(customer: answer))
    }

    /// The token of `Bearer <token>` (the scheme in any case), or nil.
    static func bearerToken(_ header: String?) -> String? {
        guard let header, header.count > 7, header.prefix(7).lowercased() == "bearer " else { return nil }
        return header.dropFirst(7).trimmedOfSpaces
    }
}
