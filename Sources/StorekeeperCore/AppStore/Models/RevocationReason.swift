import FoundationEssentials

/// Why the App Store refunded a transaction or revoked it from Family Sharing.
///
/// [revocationReason](https://developer.apple.com/documentation/appstoreserverapi/revocationreason)
public enum RevocationReason: Int32, Codable, Sendable, Hashable, CaseIterable {
    /// Another reason, for example an accidental purchase; also `0` when a family member
    /// leaves the group or the owner stops sharing.
    case refundedForOtherReason = 0
    /// An actual or perceived issue within the app.
    case refundedDueToIssue = 1
}
