import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// `reconcile`: the daily cron job that makes stored entitlements converge on Apple's truth.
/// Asks Get All Subscription Statuses for every subscription that needs it, under a rate limit
/// shared by every process through the store, and applies the answers through the same
/// entitlement logic as notifications. Each correction is a notification that was lost.
public final class ReconcileFunction: TypedFunction {
    public struct Request: RequestBody {
        public enum CodingKeys: String, CodingKey, CaseIterable {
            case bundleId, selection, originalTransactionIds, budgetSeconds, restart
        }
        /// The app whose subscriptions are walked (the only one without it).
        var bundleId: String?
        /// "attention" (default) or "all"; ignored when originalTransactionIds is given.
        var selection: String?
        var originalTransactionIds: [String]?
        var budgetSeconds: Double?
        var restart: Bool?

        func reconciliationSelection() throws -> ReconciliationSelection {
            if let ids = originalTransactionIds {
                guard !ids.isEmpty, ids.allSatisfy({ !$0.isEmpty && $0.count <= 64 }) else {
                    throw FunctionError.badInput(message: "originalTransactionIds must be a non-empty list of ids")
                }
                return .explicit(ids)
            }
            switch selection ?? "attention" {
            case "attention": return .needsAttention
            case "all": return .all
            default: throw FunctionError.badInput(message: "selection must be attention or all")
            }
        }
    }

    public struct Response: Encodable {
        var report: ReconciliationReport
        var correctedTotal: Int
        var failedTotal: Int
    }

    /// The API's settings, with the roots required (Apple's answers are verified before they
    /// are applied) and the store holding more than the verifier's caches.
    static let apiVariables: [SettingUse] = AppStoreAPISettings.apiVariables.map { variable in
        switch variable.name {
        case StorekeeperSettings.rootCertificates.name:
            .required(StorekeeperSettings.rootCertificates, "Apple's answers are verified before they are applied")
        case RuntimeSettings.storeURL.name:
            .declared(RuntimeSettings.storeURL, "entitlements, the run's cursor and the rate limit shared by every process live there")
        default:
            variable
        }
    }

    static let variables: [SettingUse] = apiVariables + [
        .declared(StorekeeperSettings.reconcileRate), .declared(StorekeeperSettings.reconcileBudget),
    ]

    public static let descriptor = FunctionDescriptor(
        name: "reconcile",
        route: nil,
        method: "POST",
        visibility: .internal,
        summary: "Daily: ask Apple for the status of every subscription that needs it and correct stored entitlements (lost notifications), rate limited and resumable.",
        request: """
            {} or {"bundleId": "...", "selection": "attention" | "all", "originalTransactionIds": ["..."],
             "budgetSeconds": 1800, "restart": false}
              \(AppStoreAPISettings.bundleIdHelp): one run (and one cron line) per app, each
              with its own cursor, all within the one shared rate limit.
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

    private let run: ResumableRun
    private let context: FunctionContext
    private let requestsPerSecond: Double
    private let defaultBudget: Double

    public init(context: FunctionContext) throws {
        run = try ResumableRun(environment: context.environment, rootsRequiredBecause: "Apple's answers are verified before they are applied")
        self.context = context
        requestsPerSecond = try context.environment.required(StorekeeperSettings.reconcileRate)
        defaultBudget = try context.environment.required(StorekeeperSettings.reconcileBudget)
    }

    public func handle(_ request: Request, call _: FunctionRequest) throws -> Reply<Response> {
        let selection = try request.reconciliationSelection()
        let app = try run.settings.catalog.app(requested: request.bundleId)
        let time = context.clock
        let deadline = try ResumableRun.deadline(budgetSeconds: request.budgetSeconds, default: defaultBudget, time: time)
        let store = try context.adapters.store()
        let gate = SharedRateLimitGate(
            limiter: SharedRateLimiter(store: store, requestsPerSecond: requestsPerSecond),
            time: time, deadline: deadline, log: context.log)
        let reconciler = try makeReconciler(store: store, app: app, client: run.settings.makeClient(context: context, app: app, gate: gate))
        let progress = TerminalProgress(label: "reconcile", time: time)
        reconciler.progress = { progress.update(done: $0, total: $1) }

        var report: ReconciliationReport
        do {
            defer { progress.finish() }
            report = try reconciler.run(selection, restart: request.restart ?? false) { time.monotonic() >= deadline }
        } catch let failure as SubscriptionStatusLookupFailure {
            context.log.error("api_key_refused", ["code": failure.code])
            throw FunctionError.configuration("Apple refused the API key (\(failure.code)): check APPSTORE_KEY_ID, APPSTORE_ISSUER_ID, APPSTORE_PRIVATE_KEY and APPSTORE_BUNDLE_ID")
        }
        report.rateLimitedWaits = gate.waits
        context.log.info("reconciliation_finished", [
            "selection": report.selection, "asked": report.asked, "unchanged": report.unchanged,
            "corrected": report.correctedTotal, "failed": report.failedTotal,
            "rateLimitedWaits": report.rateLimitedWaits, "outOfTime": report.outOfTime,
        ])
        let response = Response(report: report, correctedTotal: report.correctedTotal, failedTotal: report.failedTotal)
        return report.stoppedBy == nil ? Reply(response) : Reply(response, status: ErrorDisposition.retryLater.httpStatus, exitCode: ErrorDisposition.retryLater.exitCode)
    }

    private func makeReconciler(store: any KeyValueStore, app: CatalogApp, client: AppStoreServerAPIClient) -> Reconciler {
        let reconciler = Reconciler(
            store: store, bundleId: app.bundleId,
            lookup: APIStatusLookup(client: client, sandboxFallback: run.settings.sandboxFallback(for: app)),
            verifier: run.verification.makeVerifier(adapters: context.adapters, log: context.log), clock: context.clock,
            events: EventRecording.of(context, catalog: run.settings.catalog))
        let log = context.log
        let clock = context.clock
        reconciler.onCorrection = { correction in
            // A correction is the trace of a lost notification: worth a line each, and a count.
            log.warning("entitlement_corrected", ["originalTransactionId": correction.originalTransactionId, "kind": correction.kind])
            do { try PipelineMetrics(store: store).corrected(kind: correction.kind, bundleId: app.bundleId, at: clock.now().millisecondsSince1970) }
            catch { log.warning("metrics_not_counted", ["kind": correction.kind, "error": String(describing: error)]) }
        }
        return reconciler
    }
}
