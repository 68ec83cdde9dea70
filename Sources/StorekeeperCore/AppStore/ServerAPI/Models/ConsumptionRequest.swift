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

    enum CodingKeys: String, CodingKey {
        case customerConsented, deliveryStatus, sampleContentProvided, consumptionPercentage, refundPreference
    }

    /// Absent is not 0: a field without a value is left out (Apple reads it as not provided),
    /// and 0 is written as 0 (nothing consumed).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(customerConsented, forKey: .customerConsented)
        try container.encodeIfPresent(deliveryStatus, forKey: .deliveryStatus)
        try container.encodeIfPresent(sampleContentProvided, forKey: .sampleContentProvided)
        try container.encodeIfPresent(consumptionPercentage, forKey: .consumptionPercentage)
        try container.encodeIfPresent(refundPreference, forKey: .refundPreference)
    }
}
