import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// `migrate-receipt`: an old app version sends its legacy app receipt. The receipt is read
/// and verified locally (PKCS#7, Apple's ASN.1 layout, the chain at the receipt's creation
/// date); a dry run answers what it holds and stops there. Otherwise `ReceiptMigration` moves
/// it to the App Store Server API through an `AppStoreReceiptMigrator` built from the API
/// settings, beside the legacy verifyReceipt track when asked.
public final class MigrateReceiptFunction: TypedFunction {
    public typealias Response = CallOutcome<Answer>

    /// The wire code of a refusal by the shared bucket (HTTP 429, exit 75).
    static let rateLimitedCode = FunctionErrorCode.rateLimited.rawValue

    let settings: ReceiptSettings
    let context: FunctionContext
    let requestsPerSecond: Double

    public init(context: FunctionContext) throws {
        settings = try ReceiptSettings(environment: context.environment)
        requestsPerSecond = try context.environment.required(StorekeeperSettings.migrateRate)
        self.context = context
    }

    public func handle(_ body: Request, call: FunctionRequest) throws -> Reply<Response> {
        let request = try Self.check(body, call: call, environment: context.environment)
        // The app's proof of its user, checked before any receipt work (the route is public).
        var userId = request.userId
        if let sessionToken = request.sessionToken {
            guard let session = try SessionRepository(store: try context.adapters.store()).session(id: sessionToken, now: context.clock.now()) else {
                throw FunctionError.unauthorized(code: .invalidSession, message: "no open session with this sessionToken (ended, expired or never opened)")
            }
            userId = session.userId
        }

        let reading = try settings.verifier(for: request.bundleId).read(der: request.der)
        var answer = Answer(reading, dryRun: request.dryRun)
        let environment: String
        switch reading.verification {
        case .failure(let error):
            context.log.warning("receipt_rejected", ["code": error.code, "reason": error.reason])
            guard request.dryRun else {
                // Not a dry run: what the receipt holds is not answered, only why it was refused.
                answer.receipt = nil
                answer.originalTransactionIds = nil
                return Reply(.answered(answer), refusing: error)
            }
            return Reply(.answered(answer))
        case .success(let verification):
            guard !request.dryRun else { return Reply(.answered(answer)) }
            environment = verification.environment.rawValue
        }

        if request.legacyCheck && settings.sharedSecret == nil {
            throw FunctionError.configuration("\(StorekeeperSettings.sharedSecret.name) is not set (legacyCheck needs it)")
        }
        guard environment != "Xcode" else {
            // StoreKit testing in Xcode: neither Apple's servers nor verifyReceipt know these purchases.
            answer.migration = MigrationAnswer(
                performed: false, fromStore: nil, reason: "an Xcode receipt's purchases are unknown to the App Store Server API", outcome: nil)
            return Reply(.answered(answer))
        }
        let actor = request.sessionToken == nil ? SupportWiring.actor(of: call) : "session"
        return try migrate(reading.receipt, environment: environment, request, userId: userId, actor: actor, answer: answer)
    }
}
