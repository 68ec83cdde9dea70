/// A consumable purchase is kept at `StoreKeys.purchase` as its transaction's facts, in the
/// default spelling (sorted-key JSON).
extension TransactionFacts: StoreRecord {}
