import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// `import-customers`: moving in from a hosted service (RevenueCat, Adapty, Qonversion). Each
/// line pairs the service's user id with an original transaction id; the purchase is asked of
/// Apple (Get Transaction History and Get All Subscription Statuses, under the rate limit
/// reconcile shares, verified like every answer), applied as an `import` fact and linked to the
/// user. Resumable at the line it was on; the report says what was found for each line.
public final class ImportCustomersFunction: TypedFunction {
    public struct Response: Encodable {
        var report: CustomerImportReport
    }

    static let variables: [SettingUse] = ReconcileFunction.apiVariables.map { variable in
        variable.name == RuntimeSettings.storeURL.name
            ? .declared(RuntimeSettings.storeURL, "entitlements, links, the run's cursor and the shared rate limit live there")
            : variable
    } + [
        .declared(StorekeeperSettings.reconcileRate, "import-customers draws on the same bucket as reconcile"),
        .declared(StorekeeperSettings.importBudget),
    ]

    public static let descriptor = FunctionDescriptor(
        name: "import-customers",
        route: nil,
        method: "POST",
        visibility: .internal,
        summary: "Moving in from a hosted service: link each exported (user id, original transaction id) pair and backfill its purchases from Apple, rate limited and resumable.",
        request: """
            {"customers": [{"userId", "originalTransactionId", "bundleId"?}], "file": "export.csv",
             "budgetSeconds": 1800, "restart": false}
              customers and/or file (customers first). Names also as RevenueCat exports them:
              app_user_id, original_transaction_id, bundle_id. The file is CSV with a header row
              naming the columns (any order, other columns ignored). A line's bundleId is one
              of the catalog's apps (required when it has several). The same input resumes
              the run that stopped (killed, out of time, Apple down) at the line it was on;
              a finished input is answered from the store for 7 days, unless restart.
            """,
        response: """
            {"report": {"run", "resumedAt", "total", "done", "counts": {"linked": n, ...},
              "transactionsBackfilled", "appleRequests", "rateLimitedWaits", "outOfTime", "stoppedBy",
              "lines": [{"source": "customers" | "file", "line", "userId", "originalTransactionId",
                "bundleId", "result": "linked" | "not_found" | "already_linked_to_another_user"
                  | "invalid_line" | "rejected", "transactionsBackfilled", "alreadyLinked",
                "subscriptions": [{"originalTransactionId", "productId", "status", "linkedToUser", "failure"}],
                "code", "reason", "fromEarlierRun"}]}}
              exit 0 when every line was done or the budget ran out (rerun to go on); exit 75
              when Apple stopped answering (rerun later); exit 78 when Apple refused the API key.
              On a terminal, a progress line on stderr.
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
        defaultBudget = try context.environment.required(StorekeeperSettings.importBudget)
    }

    public func handle(_ request: Request, call _: FunctionRequest) throws -> Reply<Response> {
        let lines = try Self.lines(of: request)
        let time = context.clock
        let deadline = try ResumableRun.deadline(budgetSeconds: request.budgetSeconds, default: defaultBudget, time: time)
        let store = try context.adapters.store()
        let gate = SharedRateLimitGate(
            limiter: SharedRateLimiter(store: store, requestsPerSecond: requestsPerSecond), time: time, deadline: deadline, log: context.log)
        let settings = run.settings
        let verifier = run.verification.makeVerifier(adapters: context.adapters, log: context.log)
        let context = context
        let importer = CustomerImport(store: store, clock: time, apps: Set(settings.catalog.apps.map(\.bundleId))) { bundleId in
            let app = try settings.catalog.app(requested: bundleId)
            let migrator = AppStoreReceiptMigrator(
                client: try settings.makeClient(context: context, app: app, gate: gate), verifier: verifier,
                store: store, clock: time, sandboxFallback: settings.sandboxFallback(for: app))
            migrator.onRejected = { id, code in
                context.log.warning("import_answer_rejected", ["bundleId": bundleId, "originalTransactionId": id, "code": code])
            }
            return migrator
        }
        let progress = TerminalProgress(label: "import-customers", time: time)
        importer.progress = { progress.update(done: $0, total: $1) }

        var report: CustomerImportReport
        do {
            defer { progress.finish() }
            report = try importer.run(lines, restart: request.restart ?? false) { time.monotonic() >= deadline }
        } catch let error as AppStoreAPIError where error.kind == .unauthorized {
            context.log.error("api_key_refused", ["code": error.code])
            throw FunctionError.configuration("Apple refused the API key (\(error.code)): check APPSTORE_KEY_ID, APPSTORE_ISSUER_ID, APPSTORE_PRIVATE_KEY and APPSTORE_BUNDLE_ID")
        }
        report.rateLimitedWaits = gate.waits
        context.log.info("customers_imported", [
            "run": report.run, "total": report.total, "done": report.done, "transactionsBackfilled": report.transactionsBackfilled,
            "appleRequests": report.appleRequests, "outOfTime": report.outOfTime, "stoppedBy": report.stoppedBy ?? "-",
        ])
        let response = Response(report: report)
        return report.stoppedBy == nil ? Reply(response)
            : Reply(response, status: ErrorDisposition.retryLater.httpStatus, exitCode: ErrorDisposition.retryLater.exitCode)
    }
}
