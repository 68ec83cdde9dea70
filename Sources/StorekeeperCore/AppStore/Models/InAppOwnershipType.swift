import FoundationEssentials

/// Whether the customer bought the item, has it through Family Sharing, or was assigned a
/// seat of a group purchase (`ASSIGNED`: taking the seat back is not a refund).
///
/// [inAppOwnershipType](https://developer.apple.com/documentation/appstoreserverapi/inappownershiptype)
public enum InAppOwnershipType: String, Codable, Sendable, Hashable, CaseIterable {
    case familyShared = "FAMILY_SHARED"
    case purchased = "PURCHASED"
    case assigned = "ASSIGNED"
}
