/// What set-consumption records (consent, delivery, consumption) and how the worker finds
/// it for a refund request: consent by the purchase's owner, else by the transaction's
/// appAccountToken; the latest decision of the two wins.
public struct ConsumptionFactsRepository {
    let store: any KeyValueStore

    public init(store: any KeyValueStore) {
        self.store = store
    }

    public func consent(userId: String) throws(StoreError) -> ConsumptionConsent? {
        try store.get(StoreKeys.consumptionConsent(userId: userId), as: ConsumptionConsent.self)
    }

    public func consent(appAccountToken: String) throws(StoreError) -> ConsumptionConsent? {
        try store.get(StoreKeys.appAccountTokenConsumptionConsent(appAccountToken), as: ConsumptionConsent.self)
    }

    public func consumption(transactionId: String) throws(StoreError) -> TransactionConsumption? {
        try store.get(StoreKeys.transactionConsumption(transactionId), as: TransactionConsumption.self)
    }

    public func setConsent(_ consent: ConsumptionConsent, userId: String) throws(StoreError) {
        try store.set(StoreKeys.consumptionConsent(userId: userId), record: consent, expiresIn: nil)
    }

    public func setConsent(_ consent: ConsumptionConsent, appAccountToken: String) throws(StoreError) {
        try store.set(StoreKeys.appAccountTokenConsumptionConsent(appAccountToken), record: consent, expiresIn: nil)
    }

    /// Merges what is given into the transaction's record (a field not given keeps its value),
    /// by compare-and-set; answers the record as written.
    public func recordConsumption(transactionId: String, deliveryStatus: String?, consumptionPercentage: Int32?,
                                  at date: Int64, by actor: String, reason: String?) throws(StoreError) -> TransactionConsumption {
        try store.update(StoreKeys.transactionConsumption(transactionId), as: TransactionConsumption.self,
                         attempts: RefundRequestRepository.compareAndSetAttempts) { (current) throws(StoreError) in
            var record = current ?? TransactionConsumption(deliveryStatus: nil, consumptionPercentage: nil,
                                                           recordedAt: date, recordedBy: actor, reason: reason)
            if let deliveryStatus { record.deliveryStatus = deliveryStatus }
            if let consumptionPercentage { record.consumptionPercentage = consumptionPercentage }
            record.recordedAt = date
            record.recordedBy = actor
            record.reason = reason
            return .write(record, record)
        }
    }

    /// The user a refund request's purchase belongs to: a subscription's owner, a consumable's
    /// customer, else the user its appAccountToken was handed to; nil when none is known.
    public func owner(of request: RefundRequest) throws(StoreError) -> String? {
        if request.productType == TransactionType.consumable.rawValue {
            let purchase = SubscriptionRef(bundleId: request.bundleId, originalTransactionId: request.transactionId)
            if let customer = try store.get(StoreKeys.purchase(purchase), as: PurchaseRecord.self)?.customerId,
               !customer.hasPrefix(Event.anonymousCustomer("")) {
                return customer
            }
        } else {
            let subscription = SubscriptionRef(bundleId: request.bundleId, originalTransactionId: request.originalTransactionId)
            if let owner = try store.get(StoreKeys.owner(subscription)) { return String(decoding: owner.bytes, as: UTF8.self) }
        }
        guard let token = request.appAccountToken, !token.isEmpty,
              let user = try store.get(StoreKeys.appAccountToken(token)) else { return nil }
        return String(decoding: user.bytes, as: UTF8.self)
    }

    /// The customer's latest consent decision for the request's purchase.
    public func consent(for request: RefundRequest) throws(StoreError) -> ConsumptionConsent? {
        var found: [ConsumptionConsent] = []
        if let owner = try owner(of: request), let consent = try consent(userId: owner) { found.append(consent) }
        if let token = request.appAccountToken, !token.isEmpty, let consent = try consent(appAccountToken: token) {
            found.append(consent)
        }
        return found.max { $0.recordedAt < $1.recordedAt }
    }
}
