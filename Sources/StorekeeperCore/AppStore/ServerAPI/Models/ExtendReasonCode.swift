import FoundationEssentials

/// Why a subscription's renewal date is extended.
///
/// [extendReasonCode](https://developer.apple.com/documentation/appstoreserverapi/extendreasoncode)
public enum ExtendReasonCode: Int32, Codable, Sendable, Hashable, CaseIterable {
    case undeclared = 0
    case customerSatisfaction = 1
    case other = 2
    case serviceIssueOrOutage = 3
}
