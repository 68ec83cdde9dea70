import FunctionRuntime
import StorekeeperCore

/// `dashboard`: the operator's page. Over HTTP a visitor without a valid bearer token or
/// sign-in cookie gets a small form; POSTing a token of scope read or wider sets a signed
/// cookie (never the token) for a working day. The page reads what `metrics` reads.
public final class DashboardFunction: TypedFunction {
    public typealias Request = DashboardRequest
    public typealias Response = DashboardAnswer

    public static let descriptor = FunctionDescriptor(
        name: "dashboard",
        route: "/dashboard",
        method: "GET",
        visibility: .internal,
        summary: "The operator's dashboard: one self-contained HTML page of subscriptions, revenue estimate, history and pipeline.",
        request: """
            {"app": "<bundle id>"?, "environment": "Production" | "Sandbox"?, "customer": "<any id>"?} (over HTTP:
            GET /dashboard?app=&environment=&customer=, signed in by the cookie or Authorization: Bearer <a token with the read
            scope>); customer: one customer (a user id, appAccountToken, originalTransactionId, transactionId or appTransactionId,
            tried in that order), its entitlements and timeline;
            POST /dashboard with the form field token=<token> signs in. Defaults: every app, Production.
            """,
        response: """
            text/html: the page (no script, inline CSS and SVG, Content-Security-Policy \(DashboardHTML.contentSecurityPolicy)).
            No customer has the id asked: the page says so, 404. Not signed in: the sign-in form (200); a wrong token: the form again, 401. Signing in: 303 to /dashboard with
            Set-Cookie \(DashboardCookie.name) (HttpOnly, Secure, SameSite=Strict, 8 h). The store failing: HTTP 503, exit 75.
            """,
        variables: [.declared(RuntimeSettings.storeURL), .declared(StorekeeperSettings.webhookURL),
                    .declared(StorekeeperSettings.dashboardQuietHours)] + StorekeeperSettings.eventCatalogVariables,
        scope: .read,
        otherMethods: ["POST"],
        signsInItself: true
    )

    let context: FunctionContext
    private let endpoints: [(name: String, host: String)]
    private let quietHours: Int
    /// For the customer view: the catalog get-customer answers with.
    let answering: CustomerAnswering

    public init(context: FunctionContext) throws {
        self.context = context
        let catalog = try StorekeeperSettings.eventCatalog(in: context.environment)
        endpoints = try StorekeeperSettings.reportedWebhookEndpoints(in: context.environment, catalog: catalog)
        quietHours = try context.environment.required(StorekeeperSettings.dashboardQuietHours)
        answering = CustomerAnswering(catalog: catalog)
    }

    public func handle(_ request: DashboardRequest, call: FunctionRequest) throws -> Reply<Response> {
        let nowMilliseconds = context.clock.now().millisecondsSince1970
        let seconds = nowMilliseconds / 1000
        if call.frontDoor.isHTTP, call.method == "POST" {
            return try signIn(request.token ?? "", now: seconds)
        }
        guard request.token == nil else {
            throw FunctionError.badInput(message: "token is only for POST, the sign-in form")
        }
        if call.frontDoor.isHTTP, call.caller == nil, try cookieCaller(call, now: seconds) == nil {
            return page(DashboardHTML.signInForm(failed: false), status: 200)
        }
        let environment = request.environment ?? "Production"
        guard ["Production", "Sandbox"].contains(environment) else {
            throw FunctionError.badInput(message: "environment must be Production or Sandbox")
        }
        let store = try context.adapters.store()
        if let customer = request.customer {
            return try customerView(customer, environment: environment, store: store, now: nowMilliseconds)
        }
        _ = try MetricsAggregator(store: store).catchUp(maxEvents: MetricsFunction.catchUpLimit, now: nowMilliseconds)
        let reading = try MetricsReading.read(store: store, webhooks: endpoints, now: nowMilliseconds,
                                              realNow: context.clock.realNow().millisecondsSince1970)
        var view = DashboardPage(reading: reading, app: request.app, environment: environment,
                                 quietSeconds: Int64(quietHours) * 3600)
        view.notificationDays = try NotificationDays.read(store: store, shards: view.shardIDs, count: DashboardPage.days,
                                                          now: nowMilliseconds)
        return page(view.html(), status: 200)
    }

    /// POST: a token of scope read or wider becomes a signed cookie; anything else is the form
    /// again with 401, saying nothing of what failed.
    private func signIn(_ token: String, now: Int64) throws -> Reply<Response> {
        guard let tokens = try SignInTokens.configured(context.environment),
              let caller = SignInTokens.caller(token: token, among: tokens), caller.scope.allows(.read) else {
            context.log.warning("dashboard_sign_in_refused", [:])
            return page(DashboardHTML.signInForm(failed: true), status: 401)
        }
        let value = try DashboardCookie(material: SignInTokens.keyMaterial(tokens)).value(tokenName: caller.name, nowSeconds: now)
        context.log.info("dashboard_signed_in", ["token": caller.name])
        var reply = page("", status: 303)
        reply.headers += [
            ("Location", "/dashboard"),
            ("Set-Cookie", "\(DashboardCookie.name)=\(value); Path=/dashboard; Max-Age=\(DashboardCookie.lifetimeSeconds); HttpOnly; Secure; SameSite=Strict"),
        ]
        return reply
    }

    /// The caller a valid cookie names, if its token still exists with the read scope.
    private func cookieCaller(_ call: FunctionRequest, now: Int64) throws -> Caller? {
        guard let value = DashboardCookie.find(in: call.header("cookie")),
              let tokens = try SignInTokens.configured(context.environment),
              let name = try DashboardCookie(material: SignInTokens.keyMaterial(tokens)).tokenName(in: value, nowSeconds: now)
        else { return nil }
        return tokens.first { $0.name == name && $0.scope.allows(.read) }?.caller
    }

    func page(_ html: String, status: Int) -> Reply<Response> {
        var reply = Reply(DashboardAnswer(), status: status)
        reply.data = (Array(html.utf8), "text/html; charset=utf-8")
        reply.headers = [("Content-Security-Policy", DashboardHTML.contentSecurityPolicy), ("Cache-Control", "no-store"),
                         ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer")]
        return reply
    }
}

public struct DashboardRequest: RequestBody, Sendable {
    public var app: String?
    public var environment: String?
    public var token: String?
    /// The customer view: any id get-customer accepts.
    public var customer: String?
    public enum CodingKeys: String, CodingKey, CaseIterable { case app, environment, token, customer }
}

/// The dashboard answers HTML (`Reply.data`); this empty body is never written.
public struct DashboardAnswer: Encodable, Sendable {}
