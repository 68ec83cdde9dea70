import FoundationEssentials

/// Whether an order id is valid.
///
/// [OrderLookupStatus](https://developer.apple.com/documentation/appstoreserverapi/orderlookupstatus)
public enum OrderLookupStatus: Int32, Codable, Sendable, Hashable, CaseIterable {
    case valid = 0
    case invalid = 1
}
