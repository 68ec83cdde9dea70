import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// `reconcile`: the daily cron job that makes stored entitlements converge on Apple's truth.
/// Asks Get All Subscription Statuses for every subscription that needs it, under a rate limit
/// shared by every process through the store, and applies the answers through the same
/// entitlement logic as notifications. Each correction is a notification that was lost.
public final class ReconcileFunction: FunctionHandler {
    struct Request: RequestBody {
        enum CodingKeys: String, CodingKey, CaseIterable {
            case selection, originalTransactionIds, budgetSeconds, restart
        }
        /// "attention" (default) or "all"; ignored when originalTransactionIds is given.
        var selection: String?
        var originalTransactionIds: [String]?
        var budgetSeconds: Double?
        var restart: Bool?
    }

    struct Response: Encodable {
        var report: ReconciliationReport
        var correctedTotal: Int
        var failedTotal: Int
    }

    static let variables: [EnvironmentVariableHelp] = AppStoreAPISettings.apiVariables.map { variable in
        switch variable.name {
        case "APPSTORE_ROOT_CERTS":
            // Signed answers are verified before they are applied: the roots are required here.
            .required(variable.name, "trusted root certificates (comma-separated files or folders): Apple's answers are verified before they are applied")
        case StoreLocation.variable:
            // Not only the verifier's caches here: the entitlements, the cursor, the shared bucket.
            .optional(variable.name, "the deployment's store: sqlite:<path> (default sqlite:var/storekeeper.db) or redis://...; entitlements, the run's cursor and the rate limit shared by every process live there")
        default:
            variable
        }
    } + [
        .optional("RECONCILE_REQUESTS_PER_SECOND", "requests per second to Apple, shared by every process through the store (default 2; Apple's limits are per account)"),
        .optional("RECONCILE_BUDGET_SECONDS", "default time budget of a run (1800); an unfinished run resumes at its cursor"),
    ]

    public static let descriptor = FunctionDescriptor(
        name: "reconcile",
        route: nil,
        method: "POST",
        visibility: .internal,
        summary: "Daily: ask Apple for the status of every subscription that needs it and correct stored entitlements (lost notifications), rate limited and resumable.",
        request: """
            {} or {"selection": "attention" | "all", "originalTransactionIds": ["..."],
             "budgetSeconds": 1800, "restart": false}
              attention (default): active, grace and billing-retry subscriptions, periods that
              ended with no later event (60 days back), and subscriptions whose notifications
              were dead-lettered. all: every subscription. originalTransactionIds: only these.
              A run resumes where an unfinished run of the same selection stopped, unless restart.
              Two runs of one selection at the same time are not locked out of each other:
              both walk it (each subscriber asked twice, within the shared rate limit).
            """,
        response: """
            {"report": {"selection", "resumedAfter", "total", "done", "asked", "unchanged",
              "corrected": {"expired→active": n, ...}, "failed": {"<Apple error name>" | "not_found": n},
              "rateLimitedWaits": n, "outOfTime": false, "stoppedBy": null | "apple_unavailable"},
             "correctedTotal": n, "failedTotal": n}
              exit 0 when the walk finished or ran out of time (the next run resumes); exit 75
              when Apple stopped answering (nothing was changed for those subscribers); exit 78
              when Apple refused the API key. On a terminal, a progress line on stderr.
            """,
        variables: variables
    )

    private let settings: AppStoreAPISettings
    private let verification: AppStoreSettings
    private let context: FunctionContext
    private let requestsPerSecond: Double
    private let defaultBudget: Double

    public init(context: FunctionContext) throws {
        settings = try AppStoreAPISettings(environment: context.environment)
        guard let verification = settings.verification else {
            throw FunctionError.configuration("APPSTORE_ROOT_CERTS is required: Apple's answers are verified before they are applied")
        }
        self.verification = verification
        self.context = context
        requestsPerSecond = try Self.positiveNumber("RECONCILE_REQUESTS_PER_SECOND", in: context.environment, default: 2, maximum: 100)
        defaultBudget = try Self.positiveNumber("RECONCILE_BUDGET_SECONDS", in: context.environment, default: 1800, maximum: 86_400)
    }

    static func positiveNumber(_ name: String, in environment: EnvironmentVariables, default value: Double, maximum: Double) throws -> Double {
        guard let text = environment.optional(name) else { return value }
        guard let number = Double(text), number > 0, number <= maximum else {
            throw FunctionError.configuration("\(name) must be a number above 0 and at most \(Int(maximum))")
        }
        return number
    }

    public func handle(_ request: FunctionRequest) throws -> FunctionResponse {
        let body = try request.decode(Request.self)
        let selection: ReconciliationSelection
        if let ids = body.originalTransactionIds {
            guard !ids.isEmpty, ids.allSatisfy({ !$0.isEmpty && $0.count <= 64 }) else {
                throw FunctionError.badInput(message: "originalTransactionIds must be a non-empty list of ids")
            }
            selection = .explicit(ids)
        } else {
            switch body.selection ?? "attention" {
            case "attention": selection = .needsAttention
            case "all": selection = .all
            default: throw FunctionError.badInput(message: "selection must be attention or all")
            }
        }
        let seconds = body.budgetSeconds ?? defaultBudget
        guard seconds > 0, seconds <= 86_400 else {
            throw FunctionError.badInput(message: "budgetSeconds must be between 0 and 86400")
        }

        let store = try context.adapters.store()
        let timing = SystemRetryTiming()
        let deadline = timing.now() + .milliseconds(Int64(seconds * 1000))
        let gate = SharedRateLimitGate(
            limiter: SharedRateLimiter(store: store, requestsPerSecond: requestsPerSecond),
            timing: timing, deadline: deadline, log: context.log)
        let client = try settings.makeClient(context: context, timing: timing, gate: gate)
        let reconciler = Reconciler(
            store: store, lookup: APIStatusLookup(client: client, sandboxFallback: settings.sandboxFallback),
            verifier: verification.makeVerifier(adapters: context.adapters, log: context.log), clock: context.clock)
        let progress = TerminalProgress(label: "reconcile")
        reconciler.progress = { progress.update(done: $0, total: $1) }
        let log = context.log
        reconciler.onCorrection = { correction in
            // A correction is the trace of a lost notification: worth a line each.
            log.warning("entitlement corrected", ["originalTransactionId": correction.originalTransactionId, "kind": correction.kind])
        }

        let outcome: Result<ReconciliationReport, SubscriptionStatusLookupFailure>
        do {
            outcome = .success(try reconciler.run(selection, restart: body.restart ?? false) { timing.now() >= deadline })
        } catch let failure as SubscriptionStatusLookupFailure {
            outcome = .failure(failure)
        }
        progress.finish()
        var report: ReconciliationReport
        switch outcome {
        case .failure(let failure):
            log.error("Apple refused the API key; reconciliation stopped", ["code": failure.code])
            throw FunctionError.configuration("Apple refused the API key (\(failure.code)): check APPSTORE_KEY_ID, APPSTORE_ISSUER_ID, APPSTORE_PRIVATE_KEY and APPSTORE_BUNDLE_ID")
        case .success(let value):
            report = value
        }
        report.rateLimitedWaits = gate.waits
        log.info("reconciliation finished", [
            "selection": report.selection, "asked": report.asked, "unchanged": report.unchanged,
            "corrected": report.correctedTotal, "failed": report.failedTotal,
            "rateLimitedWaits": report.rateLimitedWaits, "outOfTime": report.outOfTime,
        ])
        let response = Response(report: report, correctedTotal: report.correctedTotal, failedTotal: report.failedTotal)
        if report.stoppedBy != nil {
            return try .json(response, status: ErrorDisposition.retryLater.httpStatus, exitCode: ErrorDisposition.retryLater.exitCode)
        }
        return try .json(response)
    }
}
