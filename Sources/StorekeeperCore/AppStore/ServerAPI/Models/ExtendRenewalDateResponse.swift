import FoundationEssentials

/// Whether one subscription's renewal date was extended.
///
/// [ExtendRenewalDateResponse](https://developer.apple.com/documentation/appstoreserverapi/extendrenewaldateresponse)
public struct ExtendRenewalDateResponse: Codable, Sendable, Equatable {
    public var originalTransactionId: String?
    public var webOrderLineItemId: String?
    public var success: Bool?
    /// The new renewal date, milliseconds since 1970.
    public var effectiveDate: Int64?
}
