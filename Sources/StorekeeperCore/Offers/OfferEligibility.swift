/// The checks `sign-offer` makes before signing when the caller asks: both read the
/// customer's stored subscriptions of one app and nothing else (no call to Apple).
public struct OfferEligibility: Sendable {
    /// The customer's subscriptions (`CustomerLookup`), any app's; only `bundleId`'s count.
    public let records: [CustomerAnswer.StoredRecord]
    public let bundleId: String

    public init(records: [CustomerAnswer.StoredRecord], bundleId: String) {
        self.records = records
        self.bundleId = bundleId
    }

    private var appRecords: [EntitlementRecord] {
        records.filter { $0.bundleId == nil || $0.bundleId == bundleId }.map(\.record)
    }

    /// A win-back offer may be signed only when the latest renewal info Apple signed for one
    /// of the customer's subscriptions lists it in `eligibleWinBackOfferIds`.
    public func winBackOfferAllowed(_ offerId: String) -> Bool {
        appRecords.contains { $0.renewal?.eligibleWinBackOfferIds?.contains(offerId) == true }
    }

    /// The product's subscription group as the customer's own transactions of it carry it,
    /// for a catalog that does not name it.
    public func subscriptionGroup(ofProduct productId: String) -> String? {
        appRecords.lazy.flatMap(\.transactions.values)
            .first { $0.productId == productId && $0.subscriptionGroupIdentifier != nil }?.subscriptionGroupIdentifier
    }

    /// Apple's rule for introductory offers, read from the history Storekeeper holds: a
    /// customer who ever had a subscription of the group (any transaction with that
    /// `subscriptionGroupIdentifier`, refunded, expired or upgraded ones included) is not
    /// eligible, nor is one who had the product itself. Storekeeper's history starts with
    /// what it saw or imported: a customer with no auto-renewable subscription of the app is
    /// eligible. Nil
    /// when the group is unknown and the customer has other subscriptions of the app (they
    /// may be of the same group).
    public func introductoryOfferAllowed(productId: String, subscriptionGroup: String?) -> Bool? {
        let transactions = appRecords.flatMap(\.transactions.values)
            .filter { $0.type == .autoRenewableSubscription || $0.subscriptionGroupIdentifier != nil }
        if transactions.contains(where: { $0.productId == productId }) { return false }
        guard let subscriptionGroup else { return transactions.isEmpty ? true : nil }
        return !transactions.contains { $0.subscriptionGroupIdentifier == subscriptionGroup }
    }
}
