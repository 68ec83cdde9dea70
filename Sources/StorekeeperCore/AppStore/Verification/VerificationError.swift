/// Why App Store signed data was rejected, with the codes Apple's own server libraries use
/// (`VerificationError` in app-store-server-library), so users can match on names they know.
///
/// https://github.com/apple/app-store-server-library-swift (SignedDataVerifier)
public typealias VerificationError = DomainError<VerificationErrorKind>

/// Apple's names for the failure kinds of signed data; legacy receipts (`ReceiptError`) use
/// the same vocabulary.
public enum VerificationErrorKind: String, ErrorKind {
    /// Not a compact JWS, a header of the wrong shape, an algorithm other than ES256,
    /// an `x5c` that is not three certificates, or a payload that is not JSON.
    case invalidJWTFormat = "INVALID_JWT_FORMAT"
    /// A certificate that does not parse, chain to a configured root, carry Apple's
    /// OIDs, or is expired or revoked at the validation time.
    case invalidCertificate = "INVALID_CERTIFICATE"
    /// The signature does not match the leaf certificate's key.
    case verificationFailure = "VERIFICATION_FAILURE"
    /// An online check could not be completed (OCSP unreachable under the hard policy).
    case retryableVerificationFailure = "RETRYABLE_VERIFICATION_FAILURE"
    /// The bundle id or App Apple ID is not this app's.
    case invalidAppIdentifier = "INVALID_APP_IDENTIFIER"
    /// The data's environment is not one this deployment accepts.
    case invalidEnvironment = "INVALID_ENVIRONMENT"
    /// Legacy receipts only (`ReceiptError`): not a PKCS#7 signedData container, or a payload
    /// that is not the receipt ASN.1 layout (bad DER, a field of the wrong type or missing).
    case invalidReceiptFormat = "INVALID_RECEIPT_FORMAT"

    public var disposition: ErrorDisposition { self == .retryableVerificationFailure ? .retryLater : .badInput }
}

extension VerificationError {
    /// INVALID_ENVIRONMENT for data that declares `environment`, which is not accepted here.
    public static func environmentNotAccepted(_ environment: String?, field: String? = nil,
                                              fileID: String = #fileID, line: Int = #line) -> VerificationError {
        VerificationError(.invalidEnvironment,
                          "\(field.map { "\($0): " } ?? "")environment \(environment ?? "(none)") is not accepted",
                          subject: environment ?? "(none)", fileID: fileID, line: line)
    }

    /// For INVALID_ENVIRONMENT: the declared environment that this deployment does not
    /// accept. Nil when the data contradicts itself (a nested JWS of another environment
    /// than its notification): that is refused, not merely unwanted.
    public var unacceptedEnvironment: String? { kind == .invalidEnvironment ? subject : nil }
}
