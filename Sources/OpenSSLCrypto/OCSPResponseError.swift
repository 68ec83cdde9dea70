/// Why an OCSP response was not accepted. `kind` is the stable part to branch on (never
/// the message); `message` carries OpenSSL's own text or our explanation, for the log.
/// Equality is by kind.
public struct OCSPResponseError: Error, CustomStringConvertible, Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        /// Not a DER OCSPResponse, or a successful one without a well-formed basic response.
        case malformed
        /// The responder answered with a status other than successful, and no answer.
        case unsuccessful(OCSPResponseStatus)
        /// The signature does not verify, or the signer is not allowed to answer for this
        /// certificate: neither its issuer nor a responder that issuer delegated to (with
        /// the OCSPSigning extended key usage), chaining to the trust store at the check time.
        case signatureInvalid
        /// The response verifies but says nothing about this certificate.
        case certificateNotInResponse
        /// The request carried a nonce and the response echoes a different one (a replay).
        case nonceMismatch
        /// Outside its thisUpdate/nextUpdate window at the check time (with the clock-skew
        /// allowance), or older than the maximum age when it has no nextUpdate.
        case stale
        /// The check itself could not run (an allocation failure, a time that cannot be
        /// represented); says nothing about the response.
        case internalFailure
    }

    public let kind: Kind
    /// OpenSSL's error-queue text, or our explanation.
    public let message: String

    public init(_ kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    /// Whether asking the responder again later can help: it said it was busy or broken.
    /// Everything else is a verdict about the bytes in hand.
    public var isRetryable: Bool {
        if case .unsuccessful(let status) = kind { return status.isTransient }
        return false
    }

    public var description: String { "OCSP response rejected (\(kind)): \(message)" }

    public static func == (lhs: OCSPResponseError, rhs: OCSPResponseError) -> Bool {
        lhs.kind == rhs.kind
    }
}

extension OCSPResponseError {
    init(_ kind: Kind, _ error: CryptoError) {
        self.init(kind, message: error.description)
    }
}
