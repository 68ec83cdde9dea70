import FunctionRuntime
import StorekeeperCore

/// What reconcile and recover-notifications share: they walk Apple's signed answers, which
/// are verified before anything uses them (so the roots are required), in a run that stops at
/// its time budget and that the next run resumes.
struct ResumableRun {
    let settings: AppStoreAPISettings
    let verification: AppStoreSettings

    /// `why` completes "APPSTORE_ROOT_CERTS is required: " in the configuration error.
    init(environment: EnvironmentVariables, rootsRequiredBecause why: String) throws {
        settings = try AppStoreAPISettings(environment: environment)
        guard let verification = settings.verification else {
            throw FunctionError.configuration("\(StorekeeperSettings.rootCertificates.name) is required: \(why)")
        }
        self.verification = verification
    }

    /// When the run stops, on `time`'s monotonic clock: after the request's `budgetSeconds`,
    /// or after the function's default; at most a day.
    static func deadline(budgetSeconds: Double?, default defaultBudget: Double,
                         time: any TimeSource) throws -> Duration {
        let seconds = budgetSeconds ?? defaultBudget
        guard seconds > 0, seconds <= 86_400 else {
            throw FunctionError.badInput(message: "budgetSeconds must be between 0 and 86400")
        }
        return time.monotonic() + .milliseconds(Int64(seconds * 1000))
    }
}
