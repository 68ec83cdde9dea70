internal import COpenSSL
import FoundationEssentials

/// A PKCS#7 signedData container with its content attached, as a legacy App Store receipt
/// is (the app's `appStoreReceiptURL` file): the signed content bytes, the certificates that
/// ride along, and verification of the one signature and of the signer's chain at a given
/// time.
///
/// Parsing does not verify anything: callers read `content` (a receipt's creation date is
/// in it), then call `verify(trustStore:at:)`. Immutable after init.
///
/// https://developer.apple.com/documentation/appstorereceipts/validating_receipts_on_the_device
public final class PKCS7SignedData: @unchecked Sendable {
    /// Larger than any receipt Apple writes (a few hundred kB with years of renewals).
    public static let maximumSize = 4 << 20

    private let object: PKCS7Object
    /// The signed content (a receipt's DER payload), exactly as signed.
    public let content: [UInt8]
    /// Every certificate in the container, in order.
    public let certificates: [Certificate]
    /// The certificate whose key made the one signature (found by issuer and serial).
    public let signer: Certificate

    /// Parses DER (BER as OpenSSL reads it; trailing bytes refused). Throws `.malformed` for
    /// anything but signedData with attached data content and exactly one signer whose
    /// certificate is inside.
    public init(der: [UInt8]) throws(PKCS7Error) {
        do {
            try OpenSSL.initialise()
        } catch {
            throw PKCS7Error(.malformed, error)
        }
        guard der.count <= Self.maximumSize else {
            throw PKCS7Error(.malformed, operation: "d2i_PKCS7", message: "\(der.count) bytes is more than \(Self.maximumSize)")
        }
        let object: PKCS7Object
        do {
            object = PKCS7Object(owning: try OpenSSL.decodeDER(
                der, "d2i_PKCS7", decode: { d2i_PKCS7(nil, $0, $1) }, free: { PKCS7_free($0) }))
        } catch {
            throw PKCS7Error(.malformed, error)
        }
        let p7 = object.pointer
        guard OBJ_obj2nid(p7.pointee.type) == NID_pkcs7_signed, let signed = p7.pointee.d.sign else {
            throw PKCS7Error(.malformed, operation: "read PKCS#7", message: "not signedData")
        }
        guard let inner = signed.pointee.contents, OBJ_obj2nid(inner.pointee.type) == NID_pkcs7_data,
              let data = inner.pointee.d.data
        else {
            throw PKCS7Error(.malformed, operation: "read PKCS#7", message: "no attached data content (detached signature?)")
        }
        content = Self.bytes(of: data)
        let certificates = try Self.certificates(in: signed)
        guard let signerInfos = PKCS7_get_signer_info(p7), shim_sk_PKCS7_SIGNER_INFO_num(signerInfos) == 1 else {
            OpenSSL.discardErrors()
            throw PKCS7Error(.malformed, operation: "read PKCS#7", message: "a receipt has exactly one signer")
        }
        // PKCS7_NOINTERN is not set: the signer is looked for among the container's own
        // certificates. The returned stack borrows them (sk_X509_free only).
        guard let signers = PKCS7_get0_signers(p7, nil, 0) else {
            throw PKCS7Error(.malformed, CryptoError.fromErrorQueue(operation: "PKCS7_get0_signers"))
        }
        defer { shim_sk_X509_free(signers) }
        guard shim_sk_X509_num(signers) == 1, let signerX509 = shim_sk_X509_value(signers, 0),
              let signer = certificates.first(where: { $0.x509.pointer == signerX509 })
        else {
            throw PKCS7Error(.malformed, operation: "PKCS7_get0_signers", message: "the signer's certificate is not in the container")
        }
        self.object = object
        self.certificates = certificates
        self.signer = signer
    }

    private static func bytes(of string: UnsafeMutablePointer<ASN1_OCTET_STRING>) -> [UInt8] {
        let length = Int(ASN1_STRING_length(string))
        guard length > 0, let bytes = ASN1_STRING_get0_data(string) else { return [] }
        return Array(UnsafeBufferPointer(start: bytes, count: length))
    }

    /// The certificates the container carries, in order (a bounded number).
    private static func certificates(in signed: UnsafeMutablePointer<PKCS7_SIGNED>) throws(PKCS7Error) -> [Certificate] {
        guard let stack = signed.pointee.cert else { return [] }
        let count = Int(shim_sk_X509_num(stack))
        guard count <= TrustStore.maximumChainLength else {
            throw PKCS7Error(.malformed, operation: "read PKCS#7", message: "\(count) certificates is too many")
        }
        var certificates: [Certificate] = []
        for index in 0..<max(count, 0) {
            guard let x509 = shim_sk_X509_value(stack, Int32(index)) else { continue }
            do {
                certificates.append(try Certificate(x509: X509Reference(retaining: x509)))
            } catch {
                throw PKCS7Error(.malformed, error)
            }
        }
        return certificates
    }

    /// Checks the signature over `content` with the signer's key, and nothing else (no chain).
    /// For data whose signer is not meant to chain anywhere (Xcode's StoreKit testing).
    public func verifySignature() throws(PKCS7Error) {
        // NOVERIFY: no chain building here (done by `verify(trustStore:at:)` with an explicit
        // time); NOINTERN is off so the signer comes from the container; BINARY: no MIME
        // canonicalisation of the content.
        let flags = Int32(PKCS7_NOVERIFY | PKCS7_BINARY)
        let result = PKCS7_verify(object.pointer, nil, nil, nil, nil, flags)
        guard result == 1 else {
            throw PKCS7Error(.invalidSignature, CryptoError.fromErrorQueue(operation: "PKCS7_verify"))
        }
    }

    /// Checks the signature, then the signer's chain (the container's other certificates as
    /// intermediates) up to one of `trustStore`'s roots as if the time were `time`: for a
    /// receipt, its creation date, since old receipts outlive their signing certificate.
    ///
    /// - Returns: the verified chain, signer first, root last.
    /// - Throws: `.invalidSignature`, `.untrustedChain`, or `.internalFailure` when the check
    ///   itself could not run; never `.malformed` (the container parsed in `init`).
    public func verify(trustStore: TrustStore, at time: Date) throws(PKCS7Error) -> [Certificate] {
        try verifySignature()
        let intermediates = certificates.filter { $0 !== signer }
        do {
            return try trustStore.verifyChain(leaf: signer, intermediates: intermediates, at: time)
        } catch let error as CertificateChainError {
            throw PKCS7Error(.untrustedChain, operation: "X509_verify_cert", message: error.description, chainError: error)
        } catch let error as CryptoError {
            // OpenSSL failed to run the check (X509_STORE_CTX_init, ...): not the chain's fault.
            throw PKCS7Error(.internalFailure, error)
        } catch {
            throw PKCS7Error(.internalFailure, operation: "X509_verify_cert", message: "\(error)")
        }
    }
}
