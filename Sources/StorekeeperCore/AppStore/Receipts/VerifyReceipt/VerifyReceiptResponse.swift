import FoundationEssentials

/// The body of a verifyReceipt answer: the fields the legacy status is inferred from.
/// Apple writes numbers and flags as strings ("1", "true", "1780272000000"); they are kept as
/// given and read through the typed accessors, so an odd value is ignored, not fatal.
///
/// https://developer.apple.com/documentation/appstorereceipts/responsebody
public struct VerifyReceiptResponse: Decodable, Sendable {
    public var status: VerifyReceiptStatus
    /// "Production" or "Sandbox".
    public var environment: String?
    public var isRetryable: Bool?
    /// Every transaction of the receipt's subscriptions (only the latest with
    /// exclude-old-transactions).
    public var latestReceiptInfo: [LatestReceiptInfo]?
    /// One per subscription (original transaction id): what happens at the next renewal.
    public var pendingRenewalInfo: [PendingRenewalInfo]?

    enum CodingKeys: String, CodingKey {
        case status, environment
        case isRetryable = "is-retryable"
        case latestReceiptInfo = "latest_receipt_info"
        case pendingRenewalInfo = "pending_renewal_info"
    }

    /// https://developer.apple.com/documentation/appstorereceipts/responsebody/latest_receipt_info
    public struct LatestReceiptInfo: Decodable, Sendable, Equatable {
        public var originalTransactionId: String
        public var transactionId: String?
        public var productId: String?
        public var purchaseDateMs: String?
        public var expiresDateMs: String?
        public var cancellationDateMs: String?
        public var cancellationReason: String?
        public var isTrialPeriod: String?
        public var isInIntroOfferPeriod: String?
        public var isUpgraded: String?
        public var webOrderLineItemId: String?

        enum CodingKeys: String, CodingKey {
            case originalTransactionId = "original_transaction_id"
            case transactionId = "transaction_id"
            case productId = "product_id"
            case purchaseDateMs = "purchase_date_ms"
            case expiresDateMs = "expires_date_ms"
            case cancellationDateMs = "cancellation_date_ms"
            case cancellationReason = "cancellation_reason"
            case isTrialPeriod = "is_trial_period"
            case isInIntroOfferPeriod = "is_in_intro_offer_period"
            case isUpgraded = "is_upgraded"
            case webOrderLineItemId = "web_order_line_item_id"
        }

        public var purchaseDate: Int64? { purchaseDateMs.flatMap { Int64($0) } }
        public var expiresDate: Int64? { expiresDateMs.flatMap { Int64($0) } }
        public var cancellationDate: Int64? { cancellationDateMs.flatMap { Int64($0) } }
        public var upgraded: Bool { isUpgraded == "true" }
    }

    /// https://developer.apple.com/documentation/appstorereceipts/responsebody/pending_renewal_info
    public struct PendingRenewalInfo: Decodable, Sendable, Equatable {
        public var originalTransactionId: String
        public var productId: String?
        public var autoRenewProductId: String?
        public var autoRenewStatus: String?
        public var expirationIntent: String?
        public var gracePeriodExpiresDateMs: String?
        public var isInBillingRetryPeriod: String?

        enum CodingKeys: String, CodingKey {
            case originalTransactionId = "original_transaction_id"
            case productId = "product_id"
            case autoRenewProductId = "auto_renew_product_id"
            case autoRenewStatus = "auto_renew_status"
            case expirationIntent = "expiration_intent"
            case gracePeriodExpiresDateMs = "grace_period_expires_date_ms"
            case isInBillingRetryPeriod = "is_in_billing_retry_period"
        }

        public var willAutoRenew: Bool? { autoRenewStatus.map { $0 == "1" } }
        /// The same reasons as the App Store Server API's expirationIntent (1–5).
        public var expirationReason: ExpirationIntent? { expirationIntent.flatMap { Int32($0) }.flatMap(ExpirationIntent.init(rawValue:)) }
        public var gracePeriodExpiresDate: Int64? { gracePeriodExpiresDateMs.flatMap { Int64($0) } }
        public var inBillingRetry: Bool { isInBillingRetryPeriod == "1" }
    }
}
