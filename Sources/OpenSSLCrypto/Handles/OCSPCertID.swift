internal import COpenSSL

/// Owns one OCSP_CERTID, the name of one certificate in OCSP messages (RFC 6960 §4.1.1:
/// hash algorithm, issuer name hash, issuer key hash, serial number), until it is handed
/// to a request that frees it with itself.
final class OCSPCertID {
    let pointer: OpaquePointer
    private var isOwned = true

    /// The CertID of `certificate` as issued by `issuer`, hashed with SHA-1: RFC 5019 §2.1.1
    /// has clients send SHA-1 CertIDs, responders (Apple's included) answer with the CertID
    /// they were asked about, and OCSP_resp_find_status compares the hash algorithm too.
    init(certificate: Certificate, issuer: Certificate) throws(CryptoError) {
        pointer = try OpenSSL.check(
            OCSP_cert_to_id(EVP_sha1(), certificate.x509.pointer, issuer.x509.pointer), "OCSP_cert_to_id")
    }

    deinit {
        if isOwned { OCSP_CERTID_free(pointer) }
    }

    /// Call right after an add0 call took the CertID: its new owner frees it, and `pointer`
    /// stays valid only while that owner lives.
    func ownershipMoved() {
        isOwned = false
    }

    /// The DER encoding of the CertID.
    func der() throws(CryptoError) -> [UInt8] {
        try Certificate.encodeDER("i2d_OCSP_CERTID") { i2d_OCSP_CERTID(pointer, $0) }
    }
}
