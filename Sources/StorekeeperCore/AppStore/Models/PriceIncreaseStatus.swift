import FoundationEssentials

/// Whether the customer has responded to a price increase that needs consent.
///
/// [priceIncreaseStatus](https://developer.apple.com/documentation/appstoreserverapi/priceincreasestatus)
public enum PriceIncreaseStatus: Int32, Codable, Sendable, Hashable, CaseIterable {
    /// The customer has not yet responded to a price increase that requires consent.
    case customerHasNotResponded = 0
    /// The customer consented, or was notified of an increase that needs no consent.
    case customerConsentedOrWasNotifiedWithoutNeedingConsent = 1
}
