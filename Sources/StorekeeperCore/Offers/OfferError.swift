/// `sign-offer` refused to sign: a check the caller asked for says the customer may not
/// have the offer.
public typealias OfferError = DomainError<OfferErrorKind>

public enum OfferErrorKind: String, ErrorKind {
    /// A win-back offer the customer's renewal info does not list.
    case offerNotEligible = "offer_not_eligible"

    public var disposition: ErrorDisposition {
        switch self {
        case .offerNotEligible: .caller(.forbidden)
        }
    }
}
