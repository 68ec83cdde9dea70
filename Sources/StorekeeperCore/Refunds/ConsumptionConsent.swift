/// A customer's decision to share consumption data with Apple (or to stop), recorded by
/// `set-consumption` for a user (`StoreKeys.consumptionConsent`) or for an appAccountToken whose
/// user is not known (`StoreKeys.appAccountTokenConsumptionConsent`). The latest decision wins.
public struct ConsumptionConsent: StoreRecord, Sendable, Equatable {
    public var consented: Bool
    /// When it was recorded (the function's clock, milliseconds).
    public var recordedAt: Int64
    /// Who recorded it (the caller's token name) and why.
    public var recordedBy: String
    public var reason: String?

    public init(consented: Bool, recordedAt: Int64, recordedBy: String, reason: String?) {
        self.consented = consented
        self.recordedAt = recordedAt
        self.recordedBy = recordedBy
        self.reason = reason
    }
}

/// What the app's backend says about one transaction (`set-consumption`), at
/// `StoreKeys.transactionConsumption`: whether the purchase was delivered and how much of it
/// was consumed.
public struct TransactionConsumption: StoreRecord, Sendable, Equatable {
    /// A `DeliveryStatus` wire value; nil when only the consumption was recorded.
    public var deliveryStatus: String?
    /// Milliunits, 0...100000.
    public var consumptionPercentage: Int32?
    public var recordedAt: Int64
    public var recordedBy: String
    public var reason: String?

    public init(deliveryStatus: String?, consumptionPercentage: Int32?, recordedAt: Int64, recordedBy: String, reason: String?) {
        self.deliveryStatus = deliveryStatus
        self.consumptionPercentage = consumptionPercentage
        self.recordedAt = recordedAt
        self.recordedBy = recordedBy
        self.reason = reason
    }
}
