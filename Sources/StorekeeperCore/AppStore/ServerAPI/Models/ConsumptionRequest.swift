import FoundationEssentials

/// The body of Send Consumption Information (v2), answering a `CONSUMPTION_REQUEST`.
///
/// [ConsumptionRequest](https://developer.apple.com/documentation/appstoreserverapi/consumptionrequest)
public struct ConsumptionRequest: Codable, Sendable, Equatable {
    /// Required: the customer consented to share consumption data with Apple.
    public var customerConsented: Bool?
    /// Required: a `DeliveryStatus` wire value.
    public var deliveryStatus: String?
    /// Required: whether a free sample or trial was provided.
    public var sampleContentProvided: Bool?
    /// How much was consumed, in thousandths of a percent (0...100000).
    public var consumptionPercentage: Int32?
    /// A `RefundPreference` wire value.
    public var refundPreference: String?

    public init(customerConsented: Bool? = nil, deliveryStatus: String? = nil, sampleContentProvided: Bool? = nil,
                consumptionPercentage: Int32? = nil, refundPreference: String? = nil) {
        self.customerConsented = customerConsented
        self.deliveryStatus = deliveryStatus
        self.sampleContentProvided = sampleContentProvided
        self.consumptionPercentage = consumptionPercentage
        self.refundPreference = refundPreference
    }
}
