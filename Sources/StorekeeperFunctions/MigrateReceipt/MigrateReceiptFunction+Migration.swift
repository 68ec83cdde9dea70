import FunctionRuntime
import StorekeeperCore

extension MigrateReceiptFunction {
    /// Runs `ReceiptMigration` for a verified receipt and answers what it did. Apple's
    /// failures are answered with Apple's names; whatever was applied before one stays (it is
    /// Apple's truth) and a rerun finishes the rest.
    func migrate(_ receipt: AppReceipt, environment: String, _ request: CheckedRequest, userId: String?,
                 actor: String, answer: Answer) throws -> Reply<Response> {
        let store = try context.adapters.store()
        guard let account = try ReceiptMigration.account(userId: userId, appAccountToken: request.appAccountToken, store: store) else {
            throw FunctionError.badInput(message: "app_account_token_of_another_user")
        }
        // The API key is needed from here on, and only here: a dry run works without it. Built
        // per request, once the request and its account are known to be good, for the app
        // the verified receipt names; linking follows the catalog's transfer policy.
        let transfers = TransferContext(catalog: settings.catalog, actor: actor, date: context.clock.now().millisecondsSince1970)
        let migrator = try makeMigrator(bundleId: receipt.bundleId, transfers: transfers)
        let legacy = request.legacyCheck ? settings.sharedSecret.map { [context] secret in
            VerifyReceiptClient(http: { try context.adapters.http() }, endpoints: settings.endpoints, sharedSecret: secret)
        } : nil
        let result: ReceiptMigration.Result
        do {
            result = try ReceiptMigration(migrator: migrator, store: store, clock: context.clock, legacy: legacy)
                .run(receipt, receiptData: request.receiptData, environment: environment, account: account, anonymous: request.anonymous)
        } catch let error as VerifyReceiptError where error.status == .sharedSecretMismatch {
            // Our secret, not the caller's receipt: fix the configuration, not the request.
            throw FunctionError.configuration("verifyReceipt answered 21004 (sharedSecretMismatch): \(StorekeeperSettings.sharedSecret.name) is not the app's shared secret")
        } catch let error as AppStoreAPIError where error.code == MigrationRateLimitGate.refusedCode {
            // What a call on credit applied before it stays; a rerun finishes the rest.
            context.log.warning("migration_rate_limited", ["retryAfterMs": error.retryAfter?.wholeMilliseconds ?? 0])
            return Self.rateLimited(retryAfter: error.retryAfter ?? .seconds(1))
        } catch let error as AppStoreAPIError {
            context.log.warning("migration_stopped_apple_unavailable", ["code": error.code, "retryable": error.isRetryable])
            return .failed(error)
        }
        log(result)
        var answer = answer
        answer.migration = MigrationAnswer(performed: true, fromStore: result.fromStore, reason: nil, outcome: result.outcome)
        if let track = result.legacy {
            let response = track.answer.response
            answer.legacy = LegacyAnswer(
                status: response.status.rawValue, statusName: response.status.name, environment: response.environment,
                redirectedToSandbox: track.answer.redirectedToSandbox, subscriptions: track.subscriptions)
            answer.disagreements = result.audits.filter { !$0.agree }.map {
                Disagreement(originalTransactionId: $0.originalTransactionId, legacyStatus: $0.legacyStatus, newStatus: $0.newStatus)
            }
        }
        return Reply(.answered(answer))
    }

    private func log(_ result: ReceiptMigration.Result) {
        let outcome = result.outcome
        if result.fromStore {
            context.log.info("receipt_answered_from_store", ["subscriptions": outcome.subscriptions.count])
        } else {
            context.log.info("receipt_migrated", [
                "subscriptions": outcome.subscriptions.count, "applied": outcome.subscriptions.reduce(0) { $0 + $1.eventsApplied },
                "appleRequests": outcome.appleRequests,
            ])
        }
        for audit in result.audits where !audit.agree {
            context.log.warning("legacy_track_disagrees", [
                "originalTransactionId": audit.originalTransactionId, "legacyStatus": audit.legacyStatus,
                "newStatus": audit.newStatus ?? "none",
            ])
        }
    }

    /// The migrator over the App Store Server API client, from the API settings (exit 78 when
    /// the key or the roots to verify Apple's answers are missing).
    private func makeMigrator(bundleId: String, transfers: TransferContext) throws -> any ReceiptMigrator {
        let api = try AppStoreAPISettings(environment: context.environment)
        guard let verification = api.verification else {
            throw FunctionError.configuration("\(StorekeeperSettings.rootCertificates.name) is not set (Apple's answers are verified before they are applied)")
        }
        // Every call for this route draws on the migrations' bucket, whoever the caller: a
        // session is anybody who signed in with Apple, and one budget is simpler to reason about.
        let gate = MigrationRateLimitGate(limiter: SharedRateLimiter(
            store: try context.adapters.store(), key: StoreKeys.receiptMigrationRateLimit, requestsPerSecond: requestsPerSecond),
            time: context.clock, log: context.log)
        let app = try api.catalog.app(requested: bundleId)
        let client = try api.makeClient(context: context, app: app, gate: gate)
        let migrator = AppStoreReceiptMigrator(
            client: client, verifier: verification.makeVerifier(adapters: context.adapters, log: context.log),
            store: try context.adapters.store(), clock: context.clock, sandboxFallback: api.sandboxFallback(for: app),
            transfers: transfers)
        let log = context.log
        migrator.onRejected = { id, code in
            log.warning("apple_answer_refused", ["originalTransactionId": id, "code": code])
        }
        return migrator
    }

    /// 429 with `Retry-After` in whole seconds, rounded up (at least 1); exit 75: try later.
    static func rateLimited(retryAfter: Duration) -> Reply<Response> {
        let milliseconds = max(retryAfter.wholeMilliseconds, 1)
        let seconds = (milliseconds + 999) / 1000
        let refusal = FunctionError(.rateLimited, "too many migrations right now: try again in \(seconds) s")
        let detail = FailureAnswer.Detail(code: refusal.code, message: refusal.message)
        return Reply(.failed(FailureAnswer(error: detail)), refusing: refusal, headers: [("Retry-After", String(seconds))])
    }
}
