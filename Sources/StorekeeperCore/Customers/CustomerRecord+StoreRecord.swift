/// A customer record is kept at `StoreKeys.customer` in the default spelling (sorted-key JSON).
extension CustomerRecord: StoreRecord, EventCarrying {}
