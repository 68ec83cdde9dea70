import FunctionRuntime
import StorekeeperCore

/// `doctor`: checks a deployment's configuration end to end without changing anything (the
/// roots and their fingerprints, the keys, the catalog, the tokens, the store, the public
/// notification URL, the clock against Apple's) and says what is wrong in plain words.
///
/// It reads the same settings every other function reads, through the same declarations, but
/// never stops at the first bad one: each becomes a line of the answer. The store is looked at
/// without a write (`FunctionAdapters.storeHealth`), and the only requests it sends are a
/// refused probe to the notification URL and a HEAD to Apple's API host.
public final class DoctorFunction: TypedFunction {
    public static let descriptor = FunctionDescriptor(
        name: "doctor",
        route: nil,
        method: "POST",
        visibility: .internal,
        summary: "Checks a deployment's configuration end to end without changing anything, and says what is wrong in plain words.",
        request: """
            {} | {"notificationURL": "https://<host>/appstore/notifications"}
              Options: --text (lines for people instead of JSON; what `make doctor` prints),
              --notification-url URL (the same as notificationURL).
              Checks, each one line: roots (every APPSTORE_ROOT_CERTS certificate parses, is a CA, is
              valid at STOREKEEPER_NOW or now; its SHA-256 fingerprint, and whether it is Apple Root CA - G3),
              app-store-api-key, sign-in-with-apple-key, offer-key (each configured key parses as a P-256
              .p8, its id is set, its team and client ids beside a Sign in with Apple key, an AuthKey_<ID>.p8 or SubscriptionKey_<ID>.p8 file name agrees with it),
              catalog (STOREKEEPER_CATALOG or the APPSTORE_* app, as every function reads it), tokens
              (STOREKEEPER_ADMIN_TOKEN at least 16 characters, STOREKEEPER_TOKENS parses), store (answers a
              read: SQLite opened read-only, Redis with read commands only; never migrated), then for Redis
              store-eviction (maxmemory-policy must be noeviction: CONFIG GET, or INFO memory when CONFIG
              is disabled) and store-persistence (appendonly), for SQLite store-integrity (PRAGMA
              quick_check), store-journal (wal) and store-disk (free space); notification-url (when given:
              an unsigned probe POSTed there must be refused 400 in Storekeeper's error shape); clock (a
              HEAD to the App Store Server API host, APPSTORE_API_BASE_URL when set: its Date within 60 s
              of this machine's clock; unreachable is skipped).
            """,
        response: """
            {"ok": true | false, "checks": [{"name", "status": "ok" | "warning" | "problem" | "skipped", "detail"}]}
              exit 0 when no check is a problem (warnings and skipped checks included); exit 78 (EX_CONFIG:
              the deployment must be fixed) when one is, with the same answer. No secret (token, key,
              store password) appears in it. An unknown option or a notificationURL that is not
              http(s): invalid_request, 400, exit 65.
            """,
        variables: [
            .optional(StorekeeperSettings.rootCertificates),
            .optional(StorekeeperSettings.catalog), .optional(StorekeeperSettings.bundleId),
            .optional(StorekeeperSettings.appAppleId), .optional(StorekeeperSettings.acceptedEnvironments),
            .optional(StorekeeperSettings.apiKeyId), .optional(StorekeeperSettings.apiIssuerId),
            .optional(StorekeeperSettings.apiPrivateKey),
            .optional(StorekeeperSettings.apiBaseURL, "the host whose Date the clock is compared with"),
            .optional(StorekeeperSettings.siwaTeamId), .optional(StorekeeperSettings.siwaClientIds), .optional(StorekeeperSettings.siwaKeyId),
            .optional(StorekeeperSettings.siwaPrivateKey),
            .optional(StorekeeperSettings.offerKeyId), .optional(StorekeeperSettings.offerPrivateKey),
            .optional(RuntimeSettings.adminToken, "checked to be at least 16 characters, never shown"),
            .optional(RuntimeSettings.tokens, "checked to parse, never shown"),
            .declared(RuntimeSettings.storeURL, "opened read-only (SQLite) or with read commands only (Redis)"),
            .declared(RuntimeSettings.caBundle),
        ]
    )

    let context: FunctionContext
    var environment: EnvironmentVariables { context.environment }
    private let options: Options

    public init(context: FunctionContext) throws {
        self.context = context
        options = try Options(context.arguments)
    }

    public func handle(_ request: Request, call _: FunctionRequest) throws -> Reply<Response> {
        let notificationURL = try Self.notificationURL(request, options)
        var checks = [rootsCheck()]
        checks += Self.keys.map(keyCheck)
        checks.append(catalogCheck())
        checks.append(tokensCheck())
        checks += storeChecks()
        checks.append(notificationCheck(notificationURL))
        checks.append(clockCheck())

        let problems = checks.filter { $0.status == .problem }
        let response = Response(ok: problems.isEmpty, checks: checks)
        context.log.info("deployment_checked", [
            "problems": problems.count, "warnings": checks.filter { $0.status == .warning }.count,
            "failed": problems.map(\.name).joined(separator: ","),
        ])
        // A problem found is the deployment's configuration to fix: EX_CONFIG, as for a function
        // that stops on a bad setting; the answer is the whole report all the same.
        var reply = Reply(response, exitCode: problems.isEmpty ? 0 : ErrorDisposition.configuration.exitCode)
        if options.text { reply.data = (Array(Self.text(response).utf8), "text/plain; charset=utf-8") }
        return reply
    }
}
