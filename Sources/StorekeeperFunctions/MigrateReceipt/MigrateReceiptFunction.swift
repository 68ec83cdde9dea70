import FoundationEssentials
import FunctionRuntime
import OpenSSLCrypto
import StorekeeperCore

/// `migrate-receipt`: an old app version sends its legacy app receipt. The receipt is read
/// and verified locally (PKCS#7, Apple's ASN.1 layout, the chain at the receipt's creation
/// date); a dry run answers what it holds and stops there. Otherwise, optionally, the legacy
/// verifyReceipt endpoint is asked too (the "legacy track"), and the move to the App Store
/// Server API happens through a `ReceiptMigrator` (`AppStoreReceiptMigrator`, built from the
/// API settings, unless a test passes its own).
public final class MigrateReceiptFunction: FunctionHandler {
    struct Request: RequestBody {
        enum CodingKeys: String, CodingKey, CaseIterable {
            case receiptData, dryRun, legacyCheck, userId, appAccountToken, sessionToken
        }
        /// Base64 of the receipt file (line breaks and spaces tolerated, as apps send them).
        var receiptData: String
        var dryRun: Bool?
        var legacyCheck: Bool?
        /// The user the purchases are linked to.
        var userId: String?
        /// A UUID to set at Apple on purchases that carry none (default: the user's own).
        var appAccountToken: String?
        /// The app's own proof of its user: the session Sign in with Apple opened (siwa-native's
        /// sessionToken). Lets an old app version link its purchases without the admin token.
        var sessionToken: String?
    }

    public static let descriptor = FunctionDescriptor(
        name: "migrate-receipt",
        route: "/appstore/receipts",
        method: "POST",
        visibility: .public,
        summary: "Read and verify a legacy app receipt (PKCS#7) from an old app version, move its purchases to the App Store Server API, optionally compare with the legacy verifyReceipt.",
        request: """
            {"receiptData": "<base64 app receipt>", "dryRun": false, "legacyCheck": false,
             "userId": "<optional>", "appAccountToken": "<optional UUID>", "sessionToken": "<optional>"}
              dryRun: answer what the receipt holds; nothing is asked of Apple, nothing is stored
              (no API key needed).
              Otherwise, for each original transaction id: Get Transaction History (every page) and
              Get All Subscription Statuses, every signed answer verified and applied to the
              entitlement (a rerun changes nothing), linked to userId. With an appAccountToken (the
              request's, which becomes the user's, or the user's Sign in with Apple one), Set App
              Account Token for purchases that carry none. Over HTTP, userId and appAccountToken
              need Authorization: Bearer $STOREKEEPER_ADMIN_TOKEN (401 otherwise): the route is public.
              An app speaks for its own user with sessionToken (the session siwa-native or
              siwa-callback opened): the purchases go to that session's user (401 invalid_session
              when it is not open).
              Anonymous (over HTTP without the bearer token and without sessionToken): when every
              original transaction id of the receipt was migrated in the last 24 h, the answer comes
              from the store and nothing is asked of Apple ("fromStore": true): only the receipt's own
              ids, their product and status now, no user (linkedToUser absent), appleRequests 0.
              Every call to the App Store Server API goes through a token bucket in the store, shared
              by every process and apart from reconcile's (MIGRATE_REQUESTS_PER_SECOND, whoever calls:
              the route is public). A request whose first call finds it empty is refused, nothing
              asked: 429 rate_limited with Retry-After (whole seconds), exit 75; its later calls take
              their tokens on credit (the next request waits that off). Apple's Retry-After holds
              the bucket back too.
              legacyCheck: also ask verifyReceipt (production, then sandbox on 21007), infer each
              subscription's legacy status, record both tracks (appstore:migration:<id>) and report
              disagreements.
            """,
        response: """
            {"dryRun": true, "verified": true | false, "environment": "Sandbox", "chainVerified": true,
             "error": {"code", "message"} (when not verified),
             "receipt": {"receiptType", "bundleId", "appVersion", "originalAppVersion", "creationDate" (ms),
                         "expirationDate", "inAppPurchases": [{"quantity", "productId", "transactionId",
                         "originalTransactionId", "purchaseDate", "originalPurchaseDate", "expiresDate",
                         "cancellationDate", "webOrderLineItemId", "isTrialPeriod", "isInIntroOfferPeriod",
                         "promotionalOfferId"}]},
             "originalTransactionIds": [...]}
            not a dry run: the receipt must verify (else {"verified": false, "error"} exit 65, or 75 when
            retryable), then
             "migration": {"performed": true, "fromStore": false, "outcome": {"appleRequests": n, "subscriptions": [
               {"originalTransactionId", "productId", "status" (active | grace | billing_retry | expired |
                refunded | revoked | lifetime; absent: no entitlement), "statusBefore", "inReceipt",
                "eventsApplied", "linkedToUser", "appAccountTokenSet", "failure" ("not_found" | "invalid_payload" | code)}]}}
               ("fromStore": true: an anonymous rerun answered from the store, see above;
                {"performed": false, "reason"} for an Xcode receipt),
             with legacyCheck "legacy": {"status", "statusName", "environment", "redirectedToSandbox",
               "subscriptions": [{"originalTransactionId", "productId", "state", "expiresDate",
               "gracePeriodExpiresDate", "expirationIntent", "autoRenew"}]}
               and "disagreements": [{"originalTransactionId", "legacyStatus", "newStatus"}].
            errors: INVALID_RECEIPT_FORMAT, INVALID_CERTIFICATE, VERIFICATION_FAILURE, INVALID_APP_IDENTIFIER,
            INVALID_ENVIRONMENT (exit 65); RETRYABLE_VERIFICATION_FAILURE, verify_receipt_unavailable, Apple 5xx
            or unreachable (Apple's error name, exit 75: what was applied stays, a rerun finishes);
            verify_receipt_rejected (exit 65); Apple refusing the API key or the shared secret (21004) (exit 78);
            rate_limited (429, Retry-After, exit 75): the shared bucket has no token now; nothing was asked
            (or, when a migration under way used up its credit or Apple asked to hold back, what was
            applied stays and a rerun finishes).
            """,
        variables: ReceiptSettings.variables + AppStoreAPISettings.apiVariables.compactMap { variable in
            switch variable.name {
            case "APPSTORE_BUNDLE_ID", "APPSTORE_ENVIRONMENT", Adapters.caBundleVariable:
                return nil // listed above
            case "APPSTORE_KEY_ID", "APPSTORE_ISSUER_ID", "APPSTORE_PRIVATE_KEY":
                return .optional(variable.name, variable.meaning + "; required unless dryRun (exit 78 without it)")
            case "APPSTORE_ROOT_CERTS":
                return .optional(variable.name, "trusted roots of Apple's signed answers (comma-separated files or folders); required unless dryRun")
            case StoreLocation.variable:
                return .optional(variable.name, "where entitlements, links and the migration audit live: sqlite:<path> (default sqlite:var/storekeeper.db) or redis://...")
            default:
                return variable
            }
        } + [
            .optional(RuntimeVariable.adminToken, "bearer token your backend sends over HTTP with userId or appAccountToken; without it those fields are refused over HTTP (401)"),
            .optional(MigrateReceiptFunction.rateVariable, "calls per second to the App Store Server API for migrations, on average, shared by every process through the store, apart from reconcile's (default 1, at most 100); beyond it 429 rate_limited"),
        ]
    )

    static let rateVariable = "MIGRATE_REQUESTS_PER_SECOND"
    /// The wire code of a refusal by the shared bucket (HTTP 429, exit 75).
    static let rateLimitedCode = FunctionErrorCode.rateLimited.rawValue

    /// The base64 length of the largest container the reader accepts.
    static let maximumReceiptDataLength = (PKCS7SignedData.maximumSize + 2) / 3 * 4

    private let settings: ReceiptSettings
    private let context: FunctionContext
    /// The move to the App Store Server API, given by a test; nil: built per request from the
    /// API settings, once the request and its account are known to be good.
    private let migrator: (any ReceiptMigrator)?
    private let requestsPerSecond: Double

    public convenience init(context: FunctionContext) throws {
        try self.init(context: context, migrator: nil)
    }

    public init(context: FunctionContext, migrator: (any ReceiptMigrator)?) throws {
        settings = try ReceiptSettings(environment: context.environment)
        requestsPerSecond = try ReconcileFunction.positiveNumber(Self.rateVariable, in: context.environment, default: 1, maximum: 100)
        self.context = context
        self.migrator = migrator
    }

    public func handle(_ request: FunctionRequest) throws -> FunctionResponse {
        let body = try request.decode(Request.self)
        let dryRun = body.dryRun ?? false
        let legacyCheck = body.legacyCheck ?? false
        if dryRun && legacyCheck {
            throw FunctionError.badInput(message: "legacyCheck asks Apple; a dry run asks nobody: send one or the other")
        }
        if dryRun && (body.userId != nil || body.appAccountToken != nil || body.sessionToken != nil) {
            throw FunctionError.badInput(message: "a dry run links nobody: userId, appAccountToken and sessionToken need dryRun false")
        }
        if body.sessionToken != nil && (body.userId != nil || body.appAccountToken != nil) {
            throw FunctionError.badInput(message: "give sessionToken (the app speaks for its user) or userId/appAccountToken (your backend does), not both")
        }
        if body.userId != nil || body.appAccountToken != nil, !request.carriesAdminAuthorization(context.environment) {
            // The route is public; linking purchases to a user, or writing a token at Apple, is
            // for a caller that vouches for the user.
            throw FunctionError.unauthorized(message: "userId and appAccountToken over HTTP need Authorization: Bearer $\(RuntimeVariable.adminToken) (your backend speaks for the user)")
        }
        if let userId = body.userId, userId.isEmpty || userId.utf8.count > 128 {
            throw FunctionError.badInput(message: "userId must be 1 to 128 characters")
        }
        var appAccountToken: String?
        if let given = body.appAccountToken {
            guard let uuid = UUID(uuidString: given) else {
                throw FunctionError.badInput(message: "appAccountToken must be a UUID")
            }
            appAccountToken = uuid.uuidString.lowercased()
        }
        let receiptData = body.receiptData.filter { !$0.isWhitespace }
        guard receiptData.utf8.count <= Self.maximumReceiptDataLength else {
            throw FunctionError.payloadTooLarge(message: "receiptData is larger than any app receipt")
        }
        guard let der = Base64.decode(receiptData, padding: .optional), !der.isEmpty else {
            throw ReceiptError(.invalidReceiptFormat, "receiptData is not base64")
        }
        // Nobody vouches for a user: the answer may come from the store (see the help).
        let anonymous = body.sessionToken == nil && !request.carriesAdminAuthorization(context.environment)
        // The app's proof of its user, checked before any receipt work (the route is public).
        var userId = body.userId
        if let sessionToken = body.sessionToken {
            guard let session = try SessionRepository(store: try context.adapters.store()).session(id: sessionToken, now: context.clock.now()) else {
                throw FunctionError.unauthorized(code: .invalidSession, message: "no open session with this sessionToken (ended, expired or never opened)")
            }
            userId = session.userId
        }

        let reading = try settings.verifier.read(der: der)
        var answer = JSONObjectBuilder()
        answer.add("dryRun", dryRun)
        let verification: ReceiptVerifier.Verification?
        switch reading.verification {
        case .success(let verified):
            verification = verified
            answer.add("verified", true)
            answer.add("environment", verified.environment)
            answer.add("chainVerified", verified.chainVerified)
        case .failure(let error):
            verification = nil
            context.log.warning("receipt did not verify", ["code": error.code, "reason": error.reason])
            answer.add("verified", false)
            if let environment = reading.receipt.receiptType?.environment { answer.add("environment", environment) }
            answer.add("error", rawJSON: FunctionResponse.errorObject(error))
            if !dryRun {
                return FunctionResponse(refusing: error, body: answer.build())
            }
        }
        try answer.add("receipt", encoding: ReceiptAnswer(reading.receipt))
        try answer.add("originalTransactionIds", encoding: reading.receipt.originalTransactionIds)
        // Not a dry run, the receipt verified (a failure was answered above).
        guard !dryRun, let environment = verification?.environment else {
            return FunctionResponse(status: 200, body: answer.build())
        }

        if legacyCheck && settings.sharedSecret == nil {
            throw FunctionError.configuration("\(ReceiptSettings.sharedSecretVariable) is not set (legacyCheck needs it)")
        }
        guard environment != "Xcode" else {
            // StoreKit testing in Xcode: neither Apple's servers nor verifyReceipt know these purchases.
            try answer.add("migration", encoding: MigrationAnswer(
                performed: false, fromStore: nil, reason: "an Xcode receipt's purchases are unknown to the App Store Server API", outcome: nil))
            return FunctionResponse(status: 200, body: answer.build())
        }
        let store = try context.adapters.store()
        let account = try resolveAccount(userId: userId, appAccountToken: appAccountToken, store: store)
        // The API key is needed from here on, and only here: a dry run works without it.
        let migrator = try self.migrator ?? makeMigrator()

        var legacySubscriptions: [LegacySubscriptionStatus]?
        if legacyCheck, let secret = settings.sharedSecret {
            let client = VerifyReceiptClient(http: { [context] in try context.adapters.http() }, endpoints: settings.endpoints, sharedSecret: secret)
            let legacy: VerifyReceiptClient.Answer
            switch Result(catching: { () throws(VerifyReceiptError) in try client.verify(receiptData: receiptData) }) {
            case .success(let answer):
                legacy = answer
            case .failure(let error) where error.status == .sharedSecretMismatch:
                // Our secret, not the caller's receipt: fix the configuration, not the request.
                throw FunctionError.configuration("verifyReceipt answered 21004 (sharedSecretMismatch): \(ReceiptSettings.sharedSecretVariable) is not the app's shared secret")
            case .failure(let error):
                throw error
            }
            let subscriptions = LegacySubscriptionStatus.infer(from: legacy.response, now: context.clock.now())
            legacySubscriptions = subscriptions
            try answer.add("legacy", encoding: LegacyAnswer(
                status: legacy.response.status.rawValue, statusName: legacy.response.status.name,
                environment: legacy.response.environment, redirectedToSandbox: legacy.redirectedToSandbox,
                subscriptions: subscriptions))
        }

        let outcome: ReceiptMigrationOutcome
        let fromStore: Bool
        if anonymous, let stored = try ReceiptMigrationMemo.storedOutcome(for: reading.receipt, now: context.clock.now(), store: store) {
            outcome = stored
            fromStore = true
            context.log.info("receipt answered from the store", ["subscriptions": outcome.subscriptions.count])
        } else {
            do {
                outcome = try migrator.migrate(reading.receipt, environment: environment, account: account)
            } catch let error as AppStoreAPIError where error.code == MigrationRateLimitGate.refusedCode {
                // What a call on credit applied before it stays; a rerun finishes the rest.
                context.log.warning("migration refused: the shared rate limit has no token now", ["retryAfterMs": error.retryAfter?.wholeMilliseconds ?? 0])
                return Self.rateLimited(retryAfter: error.retryAfter ?? .seconds(1))
            } catch let error as AppStoreAPIError {
                // Whatever was applied before the failure is Apple's truth; a rerun finishes the rest.
                context.log.warning("migration stopped: Apple did not answer", ["code": error.code, "retryable": error.isRetryable])
                throw error
            }
            fromStore = false
            try ReceiptMigrationMemo.record(outcome, now: context.clock.now(), in: store)
            context.log.info("receipt migrated", [
                "subscriptions": outcome.subscriptions.count, "applied": outcome.subscriptions.reduce(0) { $0 + $1.eventsApplied },
                "appleRequests": outcome.appleRequests,
            ])
        }
        try answer.add("migration", encoding: MigrationAnswer(performed: true, fromStore: fromStore, reason: nil, outcome: outcome))

        if let legacySubscriptions {
            let audits = ReceiptMigrationAudit.compare(legacy: legacySubscriptions, outcome: outcome,
                                                       environment: environment, now: context.clock.now())
            for audit in audits {
                try audit.save(in: store)
                if !audit.agree {
                    context.log.warning("legacy and new track disagree", [
                        "originalTransactionId": audit.originalTransactionId, "legacyStatus": audit.legacyStatus,
                        "newStatus": audit.newStatus ?? "none",
                    ])
                }
            }
            try answer.add("disagreements", encoding: audits.filter { !$0.agree }.map {
                Disagreement(originalTransactionId: $0.originalTransactionId, legacyStatus: $0.legacyStatus, newStatus: $0.newStatus)
            })
        }
        return FunctionResponse(status: 200, body: answer.build())
    }

    /// The migrator over the App Store Server API client, from the API settings (exit 78 when
    /// the key or the roots to verify Apple's answers are missing).
    private func makeMigrator() throws -> any ReceiptMigrator {
        let api = try AppStoreAPISettings(environment: context.environment)
        guard let verification = api.verification else {
            throw FunctionError.configuration("APPSTORE_ROOT_CERTS is not set (Apple's answers are verified before they are applied)")
        }
        // Every call for this route draws on the migrations' bucket, whoever the caller: a
        // session is anybody who signed in with Apple, and one budget is simpler to reason about.
        let gate = MigrationRateLimitGate(limiter: SharedRateLimiter(
            store: try context.adapters.store(), key: StoreKeys.receiptMigrationRateLimit, requestsPerSecond: requestsPerSecond),
            log: context.log)
        let client = try api.makeClient(context: context, gate: gate)
        let migrator = AppStoreReceiptMigrator(
            client: client, verifier: verification.makeVerifier(adapters: context.adapters, log: context.log),
            store: try context.adapters.store(), clock: context.clock, sandboxFallback: api.sandboxFallback)
        let log = context.log
        migrator.onRejected = { id, code in
            log.warning("Apple's signed answer was refused (did not verify, decode or apply); not applied", ["originalTransactionId": id, "code": code])
        }
        return migrator
    }

    /// 429 with `Retry-After` in whole seconds, rounded up (at least 1); exit 75: try later.
    static func rateLimited(retryAfter: Duration) -> FunctionResponse {
        let milliseconds = max(retryAfter.wholeMilliseconds, 1)
        let seconds = (milliseconds + 999) / 1000
        var response = FunctionResponse.error(FunctionError(.rateLimited, "too many migrations right now: try again in \(seconds) s"))
        response.headers.append(("Retry-After", String(seconds)))
        return response
    }

    /// The user to link to and the appAccountToken to set at Apple: the request's token
    /// (lowercased, already checked to be a UUID; it becomes the user's unless another user
    /// has it), else the token of the user's Sign in with Apple account.
    private func resolveAccount(userId: String?, appAccountToken: String?, store: any KeyValueStore) throws -> ReceiptMigrationAccount {
        let repository = EntitlementRepository(store: store)
        if let token = appAccountToken {
            if let userId, try !repository.assign(appAccountToken: token, toUser: userId) {
                throw FunctionError.badInput(message: "appAccountToken belongs to another user")
            }
            return ReceiptMigrationAccount(userId: userId, appAccountToken: token)
        }
        guard let userId else { return ReceiptMigrationAccount() }
        let token = try AccountRepository(store: store, dataKey: nil).account(userId: userId)?.appAccountToken
        return ReceiptMigrationAccount(userId: userId, appAccountToken: token)
    }
}
