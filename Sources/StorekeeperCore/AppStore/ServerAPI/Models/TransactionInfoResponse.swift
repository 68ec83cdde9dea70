import FoundationEssentials

/// Get Transaction Info's answer: one signed transaction.
///
/// [TransactionInfoResponse](https://developer.apple.com/documentation/appstoreserverapi/transactioninforesponse)
public struct TransactionInfoResponse: Codable, Sendable, Equatable {
    /// A `JWSTransaction`; verify it with `SignedDataVerifier`.
    public var signedTransactionInfo: String?
}
