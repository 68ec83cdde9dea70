import FoundationEssentials

/// An App Store Server Notification V2 whose envelope and every nested JWS verified, read
/// into Apple's models: the answer of `SignedDataVerifier.verifyNotification`.
///
/// [responseBodyV2DecodedPayload](https://developer.apple.com/documentation/appstoreservernotifications/responsebodyv2decodedpayload)
public struct VerifiedNotification: Sendable {
    /// The envelope. Its `data.signedTransactionInfo` and friends are the JWS as sent; their
    /// verified payloads are `transaction`, `renewalInfo` and `appTransaction`.
    public let payload: ResponseBodyV2DecodedPayload
    /// The key for deduplication; a notification without one is refused.
    public let notificationUUID: String
    /// When Apple signed the notification, in milliseconds; required.
    public let signedDate: Int64
    /// The nested payloads read into Apple's models; nil when absent, and when the caller
    /// asked for the envelope only (`models: .envelope`; `signed` still holds their JSON).
    public let transaction: JWSTransactionDecodedPayload?
    public let renewalInfo: JWSRenewalInfoDecodedPayload?
    /// For a notification about the app (`RESCIND_CONSENT`).
    public let appTransaction: AppTransaction?
    /// What was verified, untyped: every field's JSON as signed, kept when it is stored.
    public let signed: VerifiedSignedData

    public var environment: Environment { signed.environment }
    public var revocation: RevocationOutcome { signed.revocation }
}
