/// Why a legacy app receipt was refused: the vocabulary of App Store signed data
/// (`VerificationErrorKind`), one vocabulary for both, with INVALID_RECEIPT_FORMAT for a
/// receipt that is not Apple's PKCS#7 layout. The other codes mean for a receipt what they
/// mean for a JWS: its signer does not chain to the legacy root at the receipt's creation
/// date (INVALID_CERTIFICATE), the signature does not match (VERIFICATION_FAILURE), the roots
/// could not be loaded (RETRYABLE_VERIFICATION_FAILURE), another app's receipt
/// (INVALID_APP_IDENTIFIER), an environment not accepted here, Xcode by default
/// (INVALID_ENVIRONMENT).
public typealias ReceiptError = VerificationError

public typealias ReceiptErrorKind = VerificationErrorKind

extension ReceiptError {
    static func format(_ reason: String, fileID: String = #fileID, line: Int = #line) -> ReceiptError {
        ReceiptError(.invalidReceiptFormat, reason, fileID: fileID, line: line)
    }
}
