import FoundationEssentials
import StorekeeperCore

/// A receipt as `migrate-receipt` answers it: dates in milliseconds since 1970 (as the App
/// Store Server API writes them), opaque bytes left out, ids as strings.
struct ReceiptAnswer: Encodable {
    struct Purchase: Encodable {
        var quantity: Int64
        var productId: String
        var transactionId: String
        var originalTransactionId: String
        var purchaseDate: Int64
        var originalPurchaseDate: Int64?
        var expiresDate: Int64?
        var cancellationDate: Int64?
        var webOrderLineItemId: String?
        var isTrialPeriod: Bool?
        var isInIntroOfferPeriod: Bool?
        var promotionalOfferId: String?
    }

    var receiptType: String?
    var bundleId: String
    var appVersion: String?
    var originalAppVersion: String?
    var creationDate: Int64
    var expirationDate: Int64?
    var inAppPurchases: [Purchase]

    init(_ receipt: AppReceipt) {
        receiptType = receipt.receiptType?.rawValue
        bundleId = receipt.bundleId
        appVersion = receipt.appVersion
        originalAppVersion = receipt.originalAppVersion
        creationDate = receipt.creationDate.millisecondsSince1970
        expirationDate = receipt.expirationDate?.millisecondsSince1970
        // Oldest first (the payload's SET order means nothing).
        inAppPurchases = receipt.inAppPurchases
            .sorted { ($0.purchaseDate, $0.transactionId) < ($1.purchaseDate, $1.transactionId) }
            .map { purchase in
                Purchase(
                    quantity: purchase.quantity, productId: purchase.productId, transactionId: purchase.transactionId,
                    originalTransactionId: purchase.originalTransactionId,
                    purchaseDate: purchase.purchaseDate.millisecondsSince1970,
                    originalPurchaseDate: purchase.originalPurchaseDate?.millisecondsSince1970,
                    expiresDate: purchase.expiresDate?.millisecondsSince1970,
                    cancellationDate: purchase.cancellationDate?.millisecondsSince1970,
                    // Apple's JSON writes it as a string; 0 means "none" in a receipt.
                    webOrderLineItemId: purchase.webOrderLineItemId.flatMap { $0 == 0 ? nil : String($0) },
                    isTrialPeriod: purchase.isTrialPeriod, isInIntroOfferPeriod: purchase.isInIntroOfferPeriod,
                    promotionalOfferId: purchase.promotionalOfferId)
            }
    }
}

/// The legacy track: what verifyReceipt said and the status inferred from it.
struct LegacyAnswer: Encodable {
    var status: Int
    var statusName: String
    var environment: String?
    var redirectedToSandbox: Bool
    var subscriptions: [LegacySubscriptionStatus]
}

struct MigrationAnswer: Encodable {
    var performed: Bool
    /// Whether the outcome came from the store (an anonymous rerun within 24 h) rather than
    /// from Apple; absent when nothing was performed.
    var fromStore: Bool?
    var reason: String?
    var outcome: ReceiptMigrationOutcome?
}

/// A subscription whose legacy and new statuses differ.
struct Disagreement: Encodable {
    var originalTransactionId: String
    var legacyStatus: String
    var newStatus: String?
}

extension MigrateReceiptFunction {
    /// What `migrate-receipt` answers: the receipt as read and whether it verified, then (not a
    /// dry run) what the migration did and, with legacyCheck, the legacy track beside it.
    public struct Answer: Encodable {
        var dryRun: Bool
        var verified: Bool
        /// The receipt's environment (Production, Sandbox, Xcode), when it names one.
        var environment: String?
        var chainVerified: Bool?
        /// Why the receipt did not verify.
        var error: FailureAnswer.Detail?
        var receipt: ReceiptAnswer?
        var originalTransactionIds: [String]?
        var migration: MigrationAnswer?
        var legacy: LegacyAnswer?
        var disagreements: [Disagreement]?

        init(_ reading: ReceiptVerifier.Reading, dryRun: Bool) {
            self.dryRun = dryRun
            switch reading.verification {
            case .success(let verification):
                verified = true
                environment = verification.environment
                chainVerified = verification.chainVerified
            case .failure(let failure):
                verified = false
                environment = reading.receipt.receiptType?.environment
                error = FailureAnswer.Detail(code: failure.code, message: failure.reason)
            }
            receipt = ReceiptAnswer(reading.receipt)
            originalTransactionIds = reading.receipt.originalTransactionIds
        }
    }
}
