internal import COpenSSL
import FoundationEssentials

/// An OCSP request (RFC 6960 §4.1) asking about one certificate, ready to be POSTed with
/// the content type `OCSPRequest.contentType` to a URL from the certificate's
/// `ocspResponderURLs`. Sending it is the HTTP transport's job; this module does no I/O.
/// Check the answer with `OCSPResponseVerifier.check`.
///
/// Apple's App Store certificates name their responder in the Authority Information
/// Access extension; see "Verifying the signed data" in Apple's App Store Server API
/// documentation (https://developer.apple.com/documentation/appstoreserverapi).
public struct OCSPRequest: Sendable, Equatable {
    /// The HTTP Content-Type of a request body (RFC 6960 appendix A.1).
    public static let contentType = "application/ocsp-request"
    /// The HTTP Content-Type a responder answers with, for an Accept header.
    public static let responseContentType = "application/ocsp-response"

    /// The DER-encoded OCSPRequest: the HTTP POST body.
    public let der: [UInt8]
    /// SHA-256 of the DER CertID (SHA-1 issuer name and key hashes, serial number). The
    /// same for every request about this certificate from this issuer, nonce or not, so it
    /// keys a cache of the answers.
    public let certificateIDHash: [UInt8]
    /// Whether the request carries a nonce, which the response must then echo if it has one.
    public let hasNonce: Bool

    /// Builds an unsigned request for `certificate`, issued by `issuer`.
    ///
    /// - Parameter nonce: adds a random nonce (RFC 6960 §4.4.1). Off by default: the
    ///   pre-signed responses of CDN-backed responders such as Apple's carry none, and a
    ///   nonce makes each request uncacheable along the way.
    /// - Throws: when `issuer` did not issue `certificate` (by name, key identifier and key
    ///   usage; the signature is the chain check's business), or OpenSSL fails.
    public static func make(for certificate: Certificate, issuer: Certificate, nonce: Bool = false) throws(CryptoError) -> OCSPRequest {
        try OpenSSL.initialise()
        // A CertID names the issuer by hashes of its name and key; with the wrong issuer the
        // request asks about a certificate that does not exist, and no responder can say so.
        // Answers a verify code (X509_V_OK or X509_V_ERR_*), not OpenSSL's 1-or-0.
        let issued = X509_check_issued(issuer.x509.pointer, certificate.x509.pointer)
        OpenSSL.discardErrors()
        guard issued == X509_V_OK else {
            throw CryptoError(
                operation: "X509_check_issued",
                message: "\(issuer.subjectSummary) did not issue \(certificate.subjectSummary): "
                    + CertificateChainError(code: issued, depth: 0).message)
        }
        let id = try OCSPCertID(certificate: certificate, issuer: issuer)
        let certificateIDHash = Digest.sha256(try id.der())
        let request = try OCSPRequestObject()
        try request.add(id)  // the request owns `id` from here on
        if nonce {
            try request.addNonce()
        }
        return OCSPRequest(der: try request.der(), certificateIDHash: certificateIDHash, hasNonce: nonce)
    }
}
