/// Why a legacy app receipt was refused. The codes are the ones App Store signed data uses
/// (`VerificationErrorKind`) where the meaning is the same, so one vocabulary covers both.
public typealias ReceiptError = DomainError<ReceiptErrorKind>

public enum ReceiptErrorKind: String, ErrorKind {
    /// Not a PKCS#7 signedData container, or a payload that is not the receipt ASN.1
    /// layout (bad DER, a field of the wrong type, a missing required field).
    case invalidReceiptFormat = "INVALID_RECEIPT_FORMAT"
    /// The signer does not chain to a configured root at the receipt's creation date.
    case invalidCertificate = "INVALID_CERTIFICATE"
    /// The signature does not match the content.
    case verificationFailure = "VERIFICATION_FAILURE"
    /// The configured roots could not be loaded, or the chain check could not run: not
    /// the receipt's fault.
    case retryableVerificationFailure = "RETRYABLE_VERIFICATION_FAILURE"
    /// The receipt is another app's.
    case invalidAppIdentifier = "INVALID_APP_IDENTIFIER"
    /// The receipt's environment is unknown or not accepted here (Xcode, by default).
    case invalidEnvironment = "INVALID_ENVIRONMENT"

    public var disposition: ErrorDisposition { self == .retryableVerificationFailure ? .retryLater : .badInput }
}

extension ReceiptError {
    static func format(_ reason: String, fileID: String = #fileID, line: Int = #line) -> ReceiptError {
        ReceiptError(.invalidReceiptFormat, reason, fileID: fileID, line: line)
    }
}
