import FoundationEssentials

/// The type of an external purchase custom link token. Apple names this type `tokenType`;
/// the longer name keeps it apart from OAuth token types elsewhere in Storekeeper.
///
/// [tokenType](https://developer.apple.com/documentation/appstoreservernotifications/tokentype)
public enum ExternalPurchaseTokenType: String, Codable, Sendable, Hashable, CaseIterable {
    case acquisition = "ACQUISITION"
    case services = "SERVICES"
}
