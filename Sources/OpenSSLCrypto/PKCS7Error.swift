/// Why a PKCS#7 signed-data container (a legacy App Store receipt) was refused: it does not
/// parse as signed data, its signature does not match its content, or its signer does not
/// chain to a configured root at the validation time. `message` is OpenSSL's own text.
public struct PKCS7Error: Error, CustomStringConvertible, Equatable, Sendable {
    public enum Kind: String, Sendable, Equatable {
        /// Not DER PKCS#7, not signedData, no attached content, no or several signers,
        /// or the signer's certificate is not in the container.
        case malformed
        /// The signature does not verify over the content with the signer's key.
        case invalidSignature
        /// The signer's certificate does not chain to a configured root at the given time.
        case untrustedChain
        /// The chain check could not run (OpenSSL failing to set it up, a time it cannot
        /// represent): nothing is known about the container; retrying may succeed.
        case internalFailure
    }

    public let kind: Kind
    /// The step that failed, e.g. "d2i_PKCS7" or "PKCS7_verify".
    public let operation: String
    public let message: String
    /// OpenSSL's verdict on the chain, for `.untrustedChain`.
    public let chainError: CertificateChainError?

    public init(_ kind: Kind, operation: String, message: String, chainError: CertificateChainError? = nil) {
        self.kind = kind
        self.operation = operation
        self.message = message
        self.chainError = chainError
    }

    init(_ kind: Kind, _ error: CryptoError) {
        self.init(kind, operation: error.operation, message: error.message)
    }

    public var description: String { "\(operation) failed: \(message)" }
}
