import FoundationEssentials

/// One in-app purchase record of a legacy app receipt (attribute 17 of the payload, itself a
/// SET of attributes). Dates absent or written as an empty string are nil.
///
/// https://developer.apple.com/documentation/appstorereceipts/responsebody/receipt/in_app
/// (the JSON names of the same fields)
public struct InAppPurchaseReceipt: Sendable, Equatable {
    /// Attribute types inside an in-app record.
    enum Field {
        static let quantity: Int64 = 1701
        static let productId: Int64 = 1702
        static let transactionId: Int64 = 1703
        static let purchaseDate: Int64 = 1704
        static let originalTransactionId: Int64 = 1705
        static let originalPurchaseDate: Int64 = 1706
        static let expiresDate: Int64 = 1708
        static let webOrderLineItemId: Int64 = 1711
        static let cancellationDate: Int64 = 1712
        static let isTrialPeriod: Int64 = 1713
        static let isInIntroOfferPeriod: Int64 = 1719
        static let promotionalOfferId: Int64 = 1721
        static let all: Set<Int64> = [quantity, productId, transactionId, purchaseDate, originalTransactionId,
                                      originalPurchaseDate, expiresDate, webOrderLineItemId, cancellationDate,
                                      isTrialPeriod, isInIntroOfferPeriod, promotionalOfferId]
    }

    public var quantity: Int64
    public var productId: String
    public var transactionId: String
    public var originalTransactionId: String
    public var purchaseDate: Date
    public var originalPurchaseDate: Date?
    /// Auto-renewable subscriptions only.
    public var expiresDate: Date?
    /// Refunded or revoked purchases only.
    public var cancellationDate: Date?
    public var webOrderLineItemId: Int64?
    public var isTrialPeriod: Bool?
    public var isInIntroOfferPeriod: Bool?
    public var promotionalOfferId: String?
}
