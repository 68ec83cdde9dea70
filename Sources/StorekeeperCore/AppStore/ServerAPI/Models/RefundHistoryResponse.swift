import FoundationEssentials

/// One page of Get Refund History (v2): up to 20 refunded transactions, signed.
///
/// [RefundHistoryResponse](https://developer.apple.com/documentation/appstoreserverapi/refundhistoryresponse)
public struct RefundHistoryResponse: Codable, Sendable, Equatable {
    /// `JWSTransaction`s.
    public var signedTransactions: [String]?
    public var revision: String?
    public var hasMore: Bool?
}
