import FoundationEssentials

/// App Store signed data whose chain, signature, app and environment have all been checked.
///
/// The payload is kept as the JSON value Apple signed, strictly parsed and re-encoded
/// (`StrictJSON`): every field, known or not, with its value and type as signed, and nothing a
/// lenient reader could see differently (duplicate keys, a BOM). The untyped answer, for
/// callers that pass the JSON on (`verify-signed-data`); the typed entry points
/// (`verifyTransaction`, `verifyNotification`, ...) answer Apple's model with it.
public struct VerifiedSignedData: Sendable {
    public let type: SignedDataType
    /// The environment the data declares, one this deployment accepts.
    public let environment: Environment
    /// The app the data was checked against (one of the deployment's); nil for renewal
    /// info, which names no app.
    public let bundleId: String?
    /// The verified payload: the signed JSON value, re-encoded compactly.
    public let payload: [UInt8]
    /// When Apple signed it (an app transaction: when the receipt was created).
    public let signedDate: Date?
    /// For a notification: the verified payload of `data.signedTransactionInfo`, if present.
    public let transactionInfo: [UInt8]?
    /// For a notification: the verified payload of `data.signedRenewalInfo`, if present.
    public let renewalInfo: [UInt8]?
    /// For a notification about the app (`RESCIND_CONSENT`): the verified payload of
    /// `appData.signedAppTransactionInfo`, if present.
    public let appTransactionInfo: [UInt8]?
    /// True when the signature was not checked because the data comes from an Xcode or
    /// LocalTesting environment that this deployment explicitly accepts.
    public let signatureSkipped: Bool
    /// What the online (OCSP) checks concluded; `.notChecked` when they are off.
    public let revocation: RevocationOutcome

    /// Decodes the payload into its typed model (`ResponseBodyV2DecodedPayload`, ...).
    public func decode<Model: Decodable>(_ model: Model.Type) throws -> Model {
        try decode(model, from: payload)
    }

    /// Decodes `bytes` (this payload or one of its nested payloads) into its typed model.
    func decode<Model: Decodable>(_ model: Model.Type, from bytes: [UInt8]) throws -> Model {
        // Only data Apple did not sign (StoreKit Testing) carries fractional dates.
        let readable = signatureSkipped ? AppStoreMilliseconds.truncatingFractionalDates(bytes) : bytes
        return try JSONDecoder().decode(model, from: Data(readable))
    }
}
