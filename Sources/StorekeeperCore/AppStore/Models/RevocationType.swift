import FoundationEssentials

/// The kind of refund or revocation that applies to a transaction. For `REFUND_PRORATED`,
/// see the transaction's `revocationPercentage`.
///
/// [revocationType](https://developer.apple.com/documentation/appstoreserverapi/revocationtype)
public enum RevocationType: String, Codable, Sendable, Hashable, CaseIterable {
    case refundFull = "REFUND_FULL"
    case refundProrated = "REFUND_PRORATED"
    case familyRevoke = "FAMILY_REVOKE"
}
