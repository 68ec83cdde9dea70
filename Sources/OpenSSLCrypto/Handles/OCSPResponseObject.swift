internal import COpenSSL

/// Owns one OCSP_RESPONSE: the outer envelope a responder answers with (RFC 6960 §4.2.1),
/// a status and, when successful, the encoded basic response.
/// ("Object" to pair with `OCSPRequestObject`.)
final class OCSPResponseObject {
    let pointer: OpaquePointer

    /// Parses a DER response; trailing bytes are refused.
    init(der: [UInt8]) throws(CryptoError) {
        pointer = try OpenSSL.decodeDER(
            der, "d2i_OCSP_RESPONSE", decode: { d2i_OCSP_RESPONSE(nil, $0, $1) }, free: { OCSP_RESPONSE_free($0) })
    }

    deinit { OCSP_RESPONSE_free(pointer) }

    /// The OCSPResponseStatus value (0 successful, 1 malformedRequest, ...).
    var status: Int {
        Int(OCSP_response_status(pointer))
    }

    /// Decodes the responseBytes as a BasicOCSPResponse; fails when they are absent, of
    /// another type, or malformed.
    func basicResponse() throws(CryptoError) -> OCSPBasicResponse {
        // get1: a freshly decoded OCSP_BASICRESP that the new owner frees.
        OCSPBasicResponse(owning: try OpenSSL.check(OCSP_response_get1_basic(pointer), "OCSP_response_get1_basic"))
    }
}
