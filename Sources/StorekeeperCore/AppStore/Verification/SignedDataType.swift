/// The kinds of JWS the App Store signs. Each has its own payload model and its own claim
/// checks (renewal info carries no bundle id; only an app transaction has a receipt date).
public enum SignedDataType: String, Sendable, CaseIterable, Codable {
    /// `signedPayload` of App Store Server Notifications V2 → `ResponseBodyV2DecodedPayload`.
    case notification
    /// `signedTransactionInfo` / StoreKit 2 `jwsRepresentation` → `JWSTransactionDecodedPayload`.
    case transaction
    /// `signedRenewalInfo` → `JWSRenewalInfoDecodedPayload`.
    case renewalInfo
    /// StoreKit 2 `AppTransaction.jwsRepresentation` → `AppTransaction`.
    case appTransaction
    /// `signedPayload` of a Retention Messaging realtime request (Apple asking the Get
    /// Retention Message endpoint what to show) → `DecodedRealtimeRequestBody`.
    case realtimeRequest
}
