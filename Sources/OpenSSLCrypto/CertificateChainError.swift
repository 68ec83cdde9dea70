internal import COpenSSL

/// A certificate chain that did not verify, with OpenSSL's verdict: the X509_V_ERR code,
/// its text (X509_verify_cert_error_string) and where in the chain it failed.
public struct CertificateChainError: Error, CustomStringConvertible, Equatable, Sendable {
    /// A coarse, stable reading of `code`, so callers never match on message text.
    public enum Kind: Sendable, Equatable {
        case expired
        case notYetValid
        /// No path to a configured root (unknown issuer, missing intermediate, other root).
        case untrusted
        case invalidSignature
        /// An issuer that may not issue certificates (no CA:TRUE, no keyCertSign, path length).
        case invalidIssuer
        case other
    }

    /// OpenSSL's X509_V_ERR_* value.
    public let code: Int
    /// OpenSSL's text for `code`.
    public let message: String
    /// Position in the chain of the certificate at fault: 0 is the leaf.
    public let depth: Int

    public var kind: Kind {
        switch Int32(truncatingIfNeeded: code) {
        case X509_V_ERR_CERT_HAS_EXPIRED:
            return .expired
        case X509_V_ERR_CERT_NOT_YET_VALID:
            return .notYetValid
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY,
             X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE, X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN,
             X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT, X509_V_ERR_CERT_UNTRUSTED, X509_V_ERR_CERT_REJECTED:
            return .untrusted
        case X509_V_ERR_CERT_SIGNATURE_FAILURE, X509_V_ERR_UNABLE_TO_DECRYPT_CERT_SIGNATURE,
             X509_V_ERR_UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY:
            return .invalidSignature
        case X509_V_ERR_INVALID_CA, X509_V_ERR_PATH_LENGTH_EXCEEDED, X509_V_ERR_KEYUSAGE_NO_CERTSIGN:
            return .invalidIssuer
        default:
            return .other
        }
    }

    public var description: String {
        "certificate chain rejected at depth \(depth): \(message) (X509_V_ERR \(code))"
    }

    init(code: Int32, depth: Int32) {
        self.code = Int(code)
        self.depth = Int(depth)
        self.message = X509_verify_cert_error_string(Int(code)).map { String(cString: $0) } ?? "unknown error \(code)"
    }
}
