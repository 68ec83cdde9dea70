import FoundationEssentials

/// What a responder says about one certificate (RFC 6960 §2.2, CertStatus).
public enum OCSPCertificateStatus: Equatable, Sendable {
    /// Not revoked (which RFC 6960 allows even for a certificate the CA never issued;
    /// the chain check is what proves issuance).
    case good
    /// Revoked at `at`; `reason` is the CRLReason code (RFC 5280 §5.3.1: 1 keyCompromise,
    /// 4 superseded, ...) when the responder gave one.
    case revoked(at: Date?, reason: Int?)
    /// The responder does not know the certificate.
    case unknown
}
