import FoundationEssentials

/// Look Up Order ID's answer.
///
/// [OrderLookupResponse](https://developer.apple.com/documentation/appstoreserverapi/orderlookupresponse)
public struct OrderLookupResponse: Codable, Sendable, Equatable {
    /// The wire value of `status`: 0 valid, 1 invalid.
    public var rawStatus: Int32?
    /// `JWSTransaction`s of the order's in-app purchases.
    public var signedTransactions: [String]?

    public var status: OrderLookupStatus? { rawStatus.flatMap(OrderLookupStatus.init(rawValue:)) }

    enum CodingKeys: String, CodingKey {
        case signedTransactions
        case rawStatus = "status"
    }
}
