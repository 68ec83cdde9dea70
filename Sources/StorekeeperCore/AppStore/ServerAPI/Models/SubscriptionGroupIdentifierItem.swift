import FoundationEssentials

/// One subscription group's latest transactions.
///
/// [SubscriptionGroupIdentifierItem](https://developer.apple.com/documentation/appstoreserverapi/subscriptiongroupidentifieritem)
public struct SubscriptionGroupIdentifierItem: Codable, Sendable, Equatable {
    public var subscriptionGroupIdentifier: String?
    public var lastTransactions: [LastTransactionsItem]?
}
