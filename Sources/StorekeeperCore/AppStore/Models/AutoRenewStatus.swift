import FoundationEssentials

/// Whether an auto-renewable subscription will renew at the end of the period.
///
/// [autoRenewStatus](https://developer.apple.com/documentation/appstoreserverapi/autorenewstatus)
public enum AutoRenewStatus: Int32, Codable, Sendable, Hashable, CaseIterable {
    case off = 0
    case on = 1
}
