import FoundationEssentials

/// The type of the In-App Purchase product. Apple names this type `type`; Storekeeper calls
/// it `TransactionType` so it does not shadow Swift's `Type`.
///
/// [type](https://developer.apple.com/documentation/appstoreserverapi/type)
public enum TransactionType: String, Codable, Sendable, Hashable, CaseIterable {
    case autoRenewableSubscription = "Auto-Renewable Subscription"
    case nonConsumable = "Non-Consumable"
    case consumable = "Consumable"
    case nonRenewingSubscription = "Non-Renewing Subscription"
}
