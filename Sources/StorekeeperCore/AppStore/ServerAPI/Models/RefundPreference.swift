import FoundationEssentials

/// The refund decision the developer prefers Apple to make.
///
/// [refundPreference](https://developer.apple.com/documentation/appstoreserverapi/refundpreference)
public enum RefundPreference: String, Codable, Sendable, Hashable, CaseIterable {
    case decline = "DECLINE"
    case grantFull = "GRANT_FULL"
    case grantProrated = "GRANT_PRORATED"
}
