import FoundationEssentials

/// One kind of App Store signed data, verified, with its Apple model: the answer of
/// `SignedDataVerifier.verifyTransaction`, `verifyRenewalInfo` and `verifyAppTransaction`.
///
/// The model is decoded from exactly the bytes verification read (`signed.payload`, the
/// strict reading of the signed payload re-encoded), so it cannot see other values than the
/// checks did.
public struct Verified<Payload: Sendable>: Sendable {
    public let payload: Payload
    /// What was verified, untyped: the JSON every field of which is kept, the environment,
    /// the online-check outcome.
    public let signed: VerifiedSignedData

    public var environment: Environment { signed.environment }
    public var revocation: RevocationOutcome { signed.revocation }
}
