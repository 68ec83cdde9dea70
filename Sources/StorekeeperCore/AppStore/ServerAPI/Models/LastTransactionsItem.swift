import FoundationEssentials

/// The latest transaction and renewal information of one subscription.
///
/// [lastTransactionsItem](https://developer.apple.com/documentation/appstoreserverapi/lasttransactionsitem)
public struct LastTransactionsItem: Codable, Sendable, Equatable {
    /// The wire value of `status`.
    public var rawStatus: Int32?
    public var originalTransactionId: String?
    /// A `JWSTransaction`.
    public var signedTransactionInfo: String?
    /// A `JWSRenewalInfo`.
    public var signedRenewalInfo: String?

    public var status: Status? { rawStatus.flatMap(Status.init(rawValue:)) }

    enum CodingKeys: String, CodingKey {
        case originalTransactionId, signedTransactionInfo, signedRenewalInfo
        case rawStatus = "status"
    }
}
