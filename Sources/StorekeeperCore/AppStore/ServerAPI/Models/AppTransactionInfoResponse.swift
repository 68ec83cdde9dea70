import FoundationEssentials

/// Get App Transaction Info's answer: the customer's signed app transaction.
///
/// [AppTransactionInfoResponse](https://developer.apple.com/documentation/appstoreserverapi/apptransactioninforesponse)
public struct AppTransactionInfoResponse: Codable, Sendable, Equatable {
    /// A signed `AppTransaction`; verify it with `SignedDataVerifier`.
    public var signedAppTransactionInfo: String?
}
