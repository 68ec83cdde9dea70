/// set-consumption or refund-requests refused what they were asked.
public typealias ConsumptionError = DomainError<ConsumptionErrorKind>

public enum ConsumptionErrorKind: String, ErrorKind {
    /// `deliveryStatus` is not one of Apple's values (`DELIVERED`, `UNDELIVERED_*`).
    case invalidDeliveryStatus = "invalid_delivery_status"
    /// `consumptionPercentage` is not a whole number of milliunits from 0 to 100000, or is
    /// above 0 for an undelivered purchase.
    case invalidConsumptionPercentage = "invalid_consumption_percentage"

    public var disposition: ErrorDisposition { .badInput }
}
