import FoundationEssentials

/// The payment mode of the offer.
///
/// [offerDiscountType](https://developer.apple.com/documentation/appstoreserverapi/offerdiscounttype)
public enum OfferDiscountType: String, Codable, Sendable, Hashable, CaseIterable {
    case freeTrial = "FREE_TRIAL"
    case payAsYouGo = "PAY_AS_YOU_GO"
    case payUpFront = "PAY_UP_FRONT"
    /// An offer code for a non-subscription In-App Purchase.
    case oneTime = "ONE_TIME"
}
