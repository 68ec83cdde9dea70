import FoundationEssentials
import FunctionRuntime
import OpenSSLCrypto
import StorekeeperCore

/// `migrate-receipt`: an old app version sends its legacy app receipt. The receipt is read
/// and verified locally (PKCS#7, Apple's ASN.1 layout, the chain at the receipt's creation
/// date); a dry run answers what it holds and stops there. Otherwise, optionally, the legacy
/// verifyReceipt endpoint is asked too (the "legacy track"), and the move to the App Store
/// Server API happens through a `ReceiptMigrator` (none is wired yet: the answer says so).
public final class MigrateReceiptFunction: FunctionHandler {
    struct Request: RequestBody {
        static let fields: Set<String> = ["receiptData", "dryRun", "legacyCheck"]
        /// Base64 of the receipt file (line breaks and spaces tolerated, as apps send them).
        var receiptData: String
        var dryRun: Bool?
        var legacyCheck: Bool?
    }

    public static let descriptor = FunctionDescriptor(
        name: "migrate-receipt",
        route: "/appstore/receipts",
        method: "POST",
        visibility: .public,
        summary: "Read and verify a legacy app receipt (PKCS#7) from an old app version; optionally ask the legacy verifyReceipt too.",
        request: """
            {"receiptData": "<base64 app receipt>", "dryRun": true, "legacyCheck": false}
              dryRun: answer what the receipt holds; nothing is asked of Apple, nothing is stored.
              legacyCheck (not with dryRun): also ask verifyReceipt (production, then sandbox on
              21007) and infer each subscription's legacy status.
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
            retryable), then "legacy": {"status", "statusName", "environment", "redirectedToSandbox",
            "subscriptions": [{"originalTransactionId", "productId", "state": "active" | "grace" |
            "billing_retry" | "expired" | "refunded", "expiresDate", "gracePeriodExpiresDate",
            "expirationIntent", "autoRenew"}]} with legacyCheck, and "migration": {"performed": false,
            "reason"} until the App Store Server API migration is wired in.
            errors: INVALID_RECEIPT_FORMAT, INVALID_CERTIFICATE, VERIFICATION_FAILURE, INVALID_APP_IDENTIFIER,
            INVALID_ENVIRONMENT (exit 65); RETRYABLE_VERIFICATION_FAILURE, VERIFY_RECEIPT_UNAVAILABLE (exit 75);
            VERIFY_RECEIPT_REJECTED (Apple's status in the message, exit 65).
            """,
        variables: ReceiptSettings.variables
    )

    /// The base64 length of the largest container the reader accepts.
    static let maximumReceiptDataLength = (PKCS7SignedData.maximumSize + 2) / 3 * 4

    private let settings: ReceiptSettings
    private let context: FunctionContext
    /// The move to the App Store Server API; nil until its client exists.
    private let migrator: (any ReceiptMigrator)?

    public convenience init(context: FunctionContext) throws {
        try self.init(context: context, migrator: nil)
    }

    public init(context: FunctionContext, migrator: (any ReceiptMigrator)?) throws {
        settings = try ReceiptSettings(environment: context.environment)
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
        let receiptData = body.receiptData.filter { !$0.isWhitespace }
        guard receiptData.utf8.count <= Self.maximumReceiptDataLength else {
            throw FunctionError.payloadTooLarge(message: "receiptData is larger than any app receipt")
        }
        guard let der = Self.base64Decode(receiptData), !der.isEmpty else {
            throw FunctionError.badInput(code: ReceiptError.Code.invalidReceiptFormat.rawValue, message: "receiptData is not base64")
        }

        let reading = try settings.verifier.read(der: der)
        var answer = JSONObjectBuilder()
        answer.add("dryRun", dryRun)
        switch reading.verification {
        case .success(let verification):
            answer.add("verified", true)
            answer.add("environment", verification.environment)
            answer.add("chainVerified", verification.chainVerified)
        case .failure(let error):
            context.log.warning("receipt did not verify", ["code": error.code, "reason": error.reason])
            answer.add("verified", false)
            if let environment = reading.receipt.receiptType?.environment { answer.add("environment", environment) }
            try answer.add("error", encoding: ["code": error.code, "message": error.reason])
            if !dryRun {
                return FunctionResponse(status: error.isRetryable ? 503 : 400, body: answer.build(), exitCode: error.isRetryable ? 75 : 65)
            }
        }
        try answer.add("receipt", encoding: ReceiptAnswer(reading.receipt))
        try answer.add("originalTransactionIds", encoding: reading.receipt.originalTransactionIds)
        if dryRun {
            return FunctionResponse(status: 200, body: answer.build())
        }

        if legacyCheck {
            guard let secret = settings.sharedSecret else {
                throw FunctionError.configuration("\(ReceiptSettings.sharedSecretVariable) is not set (legacyCheck needs it)")
            }
            let client = VerifyReceiptClient(http: { [context] in try context.adapters.http() }, endpoints: settings.endpoints, sharedSecret: secret)
            let legacy = try client.verify(receiptData: receiptData)
            try answer.add("legacy", encoding: LegacyAnswer(
                status: legacy.response.status.rawValue, statusName: legacy.response.status.name,
                environment: legacy.response.environment, redirectedToSandbox: legacy.redirectedToSandbox,
                subscriptions: LegacySubscriptionStatus.infer(from: legacy.response, now: context.clock.now())))
        }

        if let migrator, let environment = try? reading.verification.get().environment {
            try answer.add("migration", encoding: MigrationAnswer(
                performed: true, reason: nil, outcome: try migrator.migrate(reading.receipt, environment: environment, userId: nil)))
        } else {
            context.log.info("receipt verified; no App Store Server API migration is wired in yet")
            try answer.add("migration", encoding: MigrationAnswer(
                performed: false, reason: "the App Store Server API migration is not available in this version", outcome: nil))
        }
        return FunctionResponse(status: 200, body: answer.build())
    }

    /// Standard base64 (what apps send), padding optional.
    static func base64Decode(_ text: String) -> [UInt8]? {
        var padded = text
        let remainder = padded.utf8.count % 4
        if remainder == 1 { return nil }
        if remainder > 0 { padded += String(repeating: "=", count: 4 - remainder) }
        return Data(base64Encoded: padded).map { [UInt8]($0) }
    }
}
