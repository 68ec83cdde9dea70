internal import COpenSSL

/// Owns one OCSP_REQUEST: the message a client POSTs to a responder (RFC 6960 §4.1).
/// ("Object" because `OCSPRequest` is the public value built from it.)
final class OCSPRequestObject {
    let pointer: OpaquePointer

    /// An empty, unsigned request.
    init() throws(CryptoError) {
        pointer = try OpenSSL.check(OCSP_REQUEST_new(), "OCSP_REQUEST_new")
    }

    /// Parses a DER request; trailing bytes are refused.
    init(der: [UInt8]) throws(CryptoError) {
        pointer = try OpenSSL.decodeDER(
            der, "d2i_OCSP_REQUEST", decode: { d2i_OCSP_REQUEST(nil, $0, $1) }, free: { OCSP_REQUEST_free($0) })
    }

    deinit { OCSP_REQUEST_free(pointer) }

    /// Asks about `id`. The request takes the CertID over (add0): `id` must not be used
    /// after the request is gone.
    func add(_ id: OCSPCertID) throws(CryptoError) {
        // On success the new OCSP_ONEREQ (which belongs to the request) holds the CertID and
        // frees it; on failure OpenSSL leaves the CertID alone, so `id` still frees it.
        _ = try OpenSSL.check(OCSP_request_add0_id(pointer, id.pointer), "OCSP_request_add0_id")
        id.ownershipMoved()
    }

    /// Adds a nonce extension (RFC 6960 §4.4.1) of 16 random bytes, which OpenSSL draws
    /// itself (value NULL, length -1) and copies into the request (add1).
    func addNonce() throws(CryptoError) {
        try OpenSSL.check(OCSP_request_add1_nonce(pointer, nil, -1), "OCSP_request_add1_nonce")
    }

    /// The DER encoding, the body of the HTTP POST.
    func der() throws(CryptoError) -> [UInt8] {
        try Certificate.encodeDER("i2d_OCSP_REQUEST") { i2d_OCSP_REQUEST(pointer, $0) }
    }
}
