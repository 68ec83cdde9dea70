import FoundationEssentials

/// The commitment of a monthly subscription with a 12-month commitment, on a transaction.
///
/// [TransactionCommitmentInfo](https://developer.apple.com/documentation/appstoreserverapi/transactioncommitmentinfo)
public struct TransactionCommitmentInfo: Codable, Sendable, Equatable, Hashable {
    /// Which billing period of the commitment this transaction is (1...12).
    public var billingPeriodNumber: Int32?
    /// When the commitment expires, in milliseconds since 1970.
    public var commitmentExpiresDate: Int64?
    /// The commitment price, in milliunits of the transaction's currency.
    public var commitmentPrice: Int64?
    /// How many billing periods the commitment has.
    public var totalBillingPeriods: Int32?

    public init(
        billingPeriodNumber: Int32? = nil,
        commitmentExpiresDate: Int64? = nil,
        commitmentPrice: Int64? = nil,
        totalBillingPeriods: Int32? = nil
    ) {
        self.billingPeriodNumber = billingPeriodNumber
        self.commitmentExpiresDate = commitmentExpiresDate
        self.commitmentPrice = commitmentPrice
        self.totalBillingPeriods = totalBillingPeriods
    }

    public var commitmentExpiresDateValue: Date? {
        get { AppStoreMilliseconds.date(commitmentExpiresDate) }
        set { commitmentExpiresDate = AppStoreMilliseconds.milliseconds(newValue) }
    }
}
