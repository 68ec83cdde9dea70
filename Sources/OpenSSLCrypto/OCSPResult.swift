import FoundationEssentials

/// A verified OCSP answer about one certificate: its status and the window in which the
/// answer may be relied on (RFC 6960 §4.2.2.1), e.g. to keep it in a cache until `nextUpdate`.
public struct OCSPResult: Equatable, Sendable {
    public let status: OCSPCertificateStatus
    /// When the responder last knew the status to be correct.
    public let thisUpdate: Date
    /// When newer information will be available; nil when the responder did not say, in
    /// which case the caller's maximum age bounded the answer's age instead.
    public let nextUpdate: Date?

    public init(status: OCSPCertificateStatus, thisUpdate: Date, nextUpdate: Date?) {
        self.status = status
        self.thisUpdate = thisUpdate
        self.nextUpdate = nextUpdate
    }
}
