import FoundationEssentials

/// The kind of offer applied to a subscription.
///
/// [offerType](https://developer.apple.com/documentation/appstoreserverapi/offertype)
public enum OfferType: Int32, Codable, Sendable, Hashable, CaseIterable {
    case introductoryOffer = 1
    case promotionalOffer = 2
    /// An offer code (Apple's docs also call these subscription offer codes).
    case offerCode = 3
    case winBackOffer = 4
}
