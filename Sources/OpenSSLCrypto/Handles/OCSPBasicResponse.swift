internal import COpenSSL
import FoundationEssentials

/// Owns one OCSP_BASICRESP: the signed part of a successful OCSP response (RFC 6960
/// §4.2.1), holding one SingleResponse per certificate asked about.
final class OCSPBasicResponse {
    /// One certificate's entry, with its times already converted (the ASN1_GENERALIZEDTIME
    /// objects belong to the basic response, so they never leave this class).
    struct Entry {
        /// V_OCSP_CERTSTATUS_GOOD, _REVOKED or _UNKNOWN.
        let status: Int32
        /// The CRLReason code, -1 when the responder gave none (or the status is not revoked).
        let reason: Int32
        let revocationTime: Date?
        let thisUpdate: Date
        let nextUpdate: Date?
    }

    let pointer: OpaquePointer

    /// Takes over a basic response the caller owns (OCSP_response_get1_basic's result).
    init(owning pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit { OCSP_BASICRESP_free(pointer) }

    /// OCSP_basic_verify: the signature, the signer's chain into `store` (at the store's
    /// verification time), and the signer's authority for the CertIDs in the response.
    /// `certificates` are extra untrusted certificates, searched first for the signer.
    ///
    /// - Returns: 1 verified, 0 not verified, negative when the check could not run or the
    ///   response lacks what it needs; the reason is left on the error queue.
    func verify(certificates: X509Stack, store: X509Store, flags: UInt) -> Int32 {
        // Neither the stack nor the store is taken over: OCSP_basic_verify borrows them.
        OCSP_basic_verify(pointer, certificates.pointer, store.pointer, flags)
    }

    /// OCSP_check_nonce against `request`: 1 both carry the same nonce, 0 both carry one and
    /// they differ, 2 neither has one, 3 only the request has one, -1 only the response.
    func compareNonce(with request: OCSPRequestObject) -> Int32 {
        OCSP_check_nonce(request.pointer, pointer)
    }

    /// The entry whose CertID equals `id` (hash algorithm included), nil when there is none.
    func entry(for id: OCSPCertID) throws(CryptoError) -> Entry? {
        var status: Int32 = -1
        var reason: Int32 = -1
        // Borrowed from the basic response; converted before this method returns.
        var revocationTime: UnsafeMutablePointer<ASN1_GENERALIZEDTIME>? = nil
        var thisUpdate: UnsafeMutablePointer<ASN1_GENERALIZEDTIME>? = nil
        var nextUpdate: UnsafeMutablePointer<ASN1_GENERALIZEDTIME>? = nil
        // 1 found, 0 not found: a plain answer, not a failure, so nothing to report.
        guard OCSP_resp_find_status(
            pointer, id.pointer, &status, &reason, &revocationTime, &thisUpdate, &nextUpdate) == 1
        else {
            OpenSSL.discardErrors()
            return nil
        }
        return Entry(
            status: status,
            reason: reason,
            revocationTime: try revocationTime.map { time throws(CryptoError) in
                try Certificate.date(UnsafePointer(time), field: "revocationTime")
            },
            thisUpdate: try Certificate.date(thisUpdate.map { UnsafePointer($0) }, field: "thisUpdate"),
            nextUpdate: try nextUpdate.map { time throws(CryptoError) in
                try Certificate.date(UnsafePointer(time), field: "nextUpdate")
            })
    }
}
