import FoundationEssentials

/// Whether the customer bought the item or has it through Family Sharing.
///
/// [inAppOwnershipType](https://developer.apple.com/documentation/appstoreserverapi/inappownershiptype)
public enum InAppOwnershipType: String, Codable, Sendable, Hashable, CaseIterable {
    case familyShared = "FAMILY_SHARED"
    case purchased = "PURCHASED"
}
