internal import COpenSSL
import FoundationEssentials

/// Checks an OCSP response (RFC 6960, in the RFC 5019 profile Apple's responders follow)
/// about one certificate, at an explicit instant, never the wall clock. The bytes come
/// from the HTTP transport or a cache; this module does no I/O.
///
/// The order is fixed: the envelope, the signature and the signer's authority, the nonce,
/// this certificate's entry, then its freshness.
public enum OCSPResponseVerifier {
    /// How far thisUpdate may lie after, and nextUpdate before, the check time: the
    /// responder's clock and ours disagree a little.
    public static let clockSkewAllowance: Duration = .seconds(300)

    /// Checks `der`, a DER OCSPResponse, about `certificate` as issued by `issuer`.
    ///
    /// - Parameters:
    ///   - issuer: the certificate's verified issuer (from the chain check). The response
    ///     must be signed by it, or by a responder it delegated to (OCSPSigning EKU), and
    ///     the signer must chain to one of `trustStore`'s roots at `time`.
    ///   - time: the instant the response must be valid at.
    ///   - maximumAge: how old thisUpdate may be when the response has no nextUpdate.
    ///   - request: the request that was sent, when there is one: if it carried a nonce, a
    ///     response that echoes a different nonce is refused. A response that echoes none
    ///     is accepted, as RFC 5019 §2.2.1 lets responders pre-sign their answers; the
    ///     thisUpdate/nextUpdate window still bounds it.
    /// - Returns: the status, thisUpdate and nextUpdate. An `unknown` status is an answer,
    ///   not an error: the caller's policy decides.
    public static func check(
        response der: [UInt8],
        for certificate: Certificate,
        issuer: Certificate,
        trustStore: TrustStore,
        at time: Date,
        maximumAge: Duration,
        request: OCSPRequest? = nil
    ) throws(OCSPResponseError) -> OCSPResult {
        do {
            try OpenSSL.initialise()
        } catch {
            throw OCSPResponseError(.internalFailure, error)
        }
        guard let seconds = Int(exactly: time.timeIntervalSince1970.rounded(.down)) else {
            throw OCSPResponseError(.internalFailure, message: "check time \(time) is not representable")
        }
        // 1. The envelope: a successful response carrying a basic response.
        let basic = try basicResponse(der)
        // 2. Who signed it, and may they answer for this issuer's certificates?
        try verifySigner(of: basic, issuer: issuer, trustStore: trustStore, at: seconds)
        // 3. A replay of an answer to someone else's request.
        if let request, request.hasNonce { try checkNonce(of: basic, echoes: request) }
        // 4. This certificate's entry.
        let entry = try entry(in: basic, for: certificate, issuer: issuer)
        // 5. Fresh at `time`.
        try checkFreshness(entry, at: time, maximumAge: maximumAge)
        return try result(of: entry)
    }

    private static func basicResponse(_ der: [UInt8]) throws(OCSPResponseError) -> OCSPBasicResponse {
        let response: OCSPResponseObject
        do {
            response = try OCSPResponseObject(der: der)
        } catch {
            throw OCSPResponseError(.malformed, error)
        }
        let status = OCSPResponseStatus(rawValue: response.status)
        guard status == .successful else {
            throw OCSPResponseError(.unsuccessful(status), message: "the responder answered \(status)")
        }
        do {
            return try response.basicResponse()
        } catch {
            throw OCSPResponseError(.malformed, error)
        }
    }

    private static func checkNonce(of basic: OCSPBasicResponse, echoes request: OCSPRequest) throws(OCSPResponseError) {
        let sent: OCSPRequestObject
        do {
            sent = try OCSPRequestObject(der: request.der)
        } catch {
            throw OCSPResponseError(.internalFailure, error)
        }
        if basic.compareNonce(with: sent) == 0 {
            throw OCSPResponseError(.nonceMismatch, message: "the response echoes another request's nonce")
        }
    }

    /// The CertID is made the way OCSPRequest makes it (SHA-1).
    private static func entry(in basic: OCSPBasicResponse, for certificate: Certificate,
                              issuer: Certificate) throws(OCSPResponseError) -> OCSPBasicResponse.Entry {
        let id: OCSPCertID
        do {
            id = try OCSPCertID(certificate: certificate, issuer: issuer)
        } catch {
            throw OCSPResponseError(.internalFailure, error)
        }
        let found: OCSPBasicResponse.Entry?
        do {
            found = try basic.entry(for: id)
        } catch {
            // The entry is there but its times do not parse.
            throw OCSPResponseError(.malformed, error)
        }
        guard let entry = found else {
            throw OCSPResponseError(
                .certificateNotInResponse,
                message: "no entry for serial \(certificate.serialNumberHex) issued by \(issuer.subjectSummary)")
        }
        return entry
    }

    private static func result(of entry: OCSPBasicResponse.Entry) throws(OCSPResponseError) -> OCSPResult {
        switch entry.status {
        case V_OCSP_CERTSTATUS_GOOD:
            return OCSPResult(status: .good, thisUpdate: entry.thisUpdate, nextUpdate: entry.nextUpdate)
        case V_OCSP_CERTSTATUS_REVOKED:
            let reason = entry.reason >= 0 ? Int(entry.reason) : nil
            return OCSPResult(
                status: .revoked(at: entry.revocationTime, reason: reason),
                thisUpdate: entry.thisUpdate, nextUpdate: entry.nextUpdate)
        case V_OCSP_CERTSTATUS_UNKNOWN:
            return OCSPResult(status: .unknown, thisUpdate: entry.thisUpdate, nextUpdate: entry.nextUpdate)
        default:
            throw OCSPResponseError(.malformed, message: "certificate status \(entry.status) is not defined")
        }
    }

    /// OCSP_basic_verify at `seconds` since 1970.
    ///
    /// OCSP_basic_verify takes no time: it builds its own X509_STORE_CTX from the store it
    /// is given, and that context inherits the store's X509_VERIFY_PARAM. So each check
    /// gets a store of its own (the trust store's roots, up-ref'd) whose parameters carry
    /// the time; the shared TrustStore is never mutated.
    ///
    /// Flags: none of OCSP_NOVERIFY / OCSP_TRUSTOTHER, so the signer's chain is always
    /// verified, even when the signer is the issuer we were handed. OCSP_NOEXPLICIT: without
    /// it, a signer that is neither the issuer nor delegated by it is still accepted when
    /// the root it chains to is explicitly trusted for OCSP signing (auxiliary trust
    /// settings). Roots loaded from plain certificates carry none in OpenSSL 3.0, but who
    /// may answer for a certificate must not depend on how a root was loaded.
    private static func verifySigner(
        of basic: OCSPBasicResponse, issuer: Certificate, trustStore: TrustStore, at seconds: Int
    ) throws(OCSPResponseError) {
        let store: X509Store
        let certificates: X509Stack
        do {
            store = try X509Store()
            for root in trustStore.roots {
                try store.addTrustAnchor(root.x509)
            }
            let parameters = try OpenSSL.check(X509_STORE_get0_param(store.pointer), "X509_STORE_get0_param")
            X509_VERIFY_PARAM_set_time(parameters, seconds)
            X509_VERIFY_PARAM_set_depth(parameters, Int32(TrustStore.maximumChainLength - 2))
            // Borrowed: `issuer` keeps its X509 alive for the whole call.
            certificates = try X509Stack()
            try certificates.pushBorrowed(issuer.x509.pointer)
        } catch {
            throw OCSPResponseError(.internalFailure, error)
        }
        let verified = withExtendedLifetime(issuer) {
            basic.verify(certificates: certificates, store: store, flags: UInt(OCSP_NOEXPLICIT))
        }
        // 0 and negative alike: the signer is not found, its key or chain is unusable, the
        // response has no entries to authorise. The bytes are what failed, so it is a
        // verdict, not a retryable fault.
        guard verified == 1 else {
            // A signer that verifies but has no authority for these CertIDs is refused
            // without an entry on the error queue.
            let message = ERR_peek_error() == 0
                ? "the signer is neither \(issuer.subjectSummary) nor a responder it delegated to (OCSPSigning)"
                : CryptoError.fromErrorQueue(operation: "OCSP_basic_verify").message
            throw OCSPResponseError(.signatureInvalid, message: message)
        }
    }

    /// The thisUpdate/nextUpdate window (RFC 6960 §3.2 items 5 and 6; RFC 5019 §4).
    ///
    /// Not OCSP_check_validity: it compares against time(NULL), the wall clock, and cannot
    /// be given another instant (its one allowance is added to thisUpdate's bound and
    /// subtracted from nextUpdate's, so no offset can stand in for a time either). The same
    /// rules are applied here to the converted dates.
    private static func checkFreshness(
        _ entry: OCSPBasicResponse.Entry, at time: Date, maximumAge: Duration
    ) throws(OCSPResponseError) {
        let skew = seconds(clockSkewAllowance)
        if entry.thisUpdate > time.addingTimeInterval(skew) {
            throw OCSPResponseError(.stale, message: "thisUpdate \(entry.thisUpdate) is after the check time \(time)")
        }
        if let nextUpdate = entry.nextUpdate {
            if nextUpdate < entry.thisUpdate {
                throw OCSPResponseError(
                    .malformed, message: "nextUpdate \(nextUpdate) is before thisUpdate \(entry.thisUpdate)")
            }
            if nextUpdate < time.addingTimeInterval(-skew) {
                throw OCSPResponseError(.stale, message: "nextUpdate \(nextUpdate) is before the check time \(time)")
            }
        } else if entry.thisUpdate < time.addingTimeInterval(-seconds(maximumAge)) {
            throw OCSPResponseError(
                .stale,
                message: "thisUpdate \(entry.thisUpdate) is older than \(maximumAge) at \(time) and there is no nextUpdate")
        }
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
