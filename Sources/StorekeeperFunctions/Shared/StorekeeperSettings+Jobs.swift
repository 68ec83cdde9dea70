import FunctionRuntime

/// The budgets, leases and rates of the functions cron runs.
extension StorekeeperSettings {
    static let processBudget = Setting<Double>.positiveNumber(
        "PROCESS_BUDGET_SECONDS", default: 50, maximum: 3600, help: "default time budget of a run (50)")

    /// At least a millisecond (the stores' unit), at most an hour: a longer lease only
    /// delays the retry of work a dead worker held.
    static let processLease = Setting<Duration>(
        "PROCESS_LEASE_SECONDS", .optional, default: "30",
        help: "how long a claimed notification is hidden from other workers; a worker killed mid-way gives it back after this long (30; at most 3600)"
    ) { text throws(SettingProblem) in
        guard let value = Double(text), value >= 0.001, value <= 3600 else {
            throw SettingProblem("must be a number of seconds between 0.001 and 3600")
        }
        return .milliseconds(Int64((value * 1000).rounded()))
    }

    static let reconcileRate = Setting<Double>.positiveNumber(
        "RECONCILE_REQUESTS_PER_SECOND", default: 2, maximum: 100,
        help: "requests per second to Apple, shared by every process through the store (default 2; Apple's limits are per account)")

    static let reconcileBudget = Setting<Double>.positiveNumber(
        "RECONCILE_BUDGET_SECONDS", default: 1800, maximum: 86_400,
        help: "default time budget of a run (1800); an unfinished run resumes at its cursor")

    static let importBudget = Setting<Double>.positiveNumber(
        "IMPORT_BUDGET_SECONDS", default: 1800, maximum: 86_400,
        help: "default time budget of an import-customers run (1800); an unfinished run resumes at the line it was on")

    static let recoverBudget = Setting<Double>.positiveNumber(
        "RECOVER_BUDGET_SECONDS", default: 600, maximum: 86_400,
        help: "default time budget of a run (600); an unfinished run resumes at its saved page")

    static let migrateRate = Setting<Double>.positiveNumber(
        "MIGRATE_REQUESTS_PER_SECOND", default: 1, maximum: 100,
        help: "calls per second to the App Store Server API for migrations, on average, shared by every process through the store, apart from reconcile's (default 1, at most 100); beyond it 429 rate_limited")

    static let jobs: [SettingDeclaration] = [
        processBudget.declaration, processLease.declaration, reconcileRate.declaration, reconcileBudget.declaration,
        recoverBudget.declaration, migrateRate.declaration, importBudget.declaration,
    ]
}
