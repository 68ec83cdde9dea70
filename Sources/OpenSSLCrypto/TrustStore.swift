internal import COpenSSL
import FoundationEssentials

/// The configured trust anchors (for App Store data, Apple's root certificates) and chain
/// verification against them, at an explicit instant.
///
/// Immutable after init, so one instance can be shared across tasks.
public final class TrustStore: @unchecked Sendable {
    /// Longest chain accepted (leaf, intermediates, root); Apple's chains have three.
    public static let maximumChainLength = 8

    private let store: X509Store
    /// The trust anchors, as given.
    public let roots: [Certificate]

    public init(roots: [Certificate]) throws(CryptoError) {
        try OpenSSL.initialise()
        guard !roots.isEmpty else {
            throw CryptoError(operation: "build trust store", message: "no root certificates given")
        }
        let store = try X509Store()
        for root in roots {
            try store.addTrustAnchor(root.x509)
        }
        self.store = store
        self.roots = roots
    }

    /// Verifies `leaf` up to one of the roots, using `intermediates` as untrusted helpers,
    /// as if the time were `time` (never the wall clock). Partial chains are refused: the
    /// path must end at a configured root.
    ///
    /// - Returns: the verified chain, leaf first, root last.
    /// - Throws: `CertificateChainError` when the chain is not valid; `CryptoError` when
    ///   the check itself could not run.
    public func verifyChain(leaf: Certificate, intermediates: [Certificate], at time: Date) throws -> [Certificate] {
        guard let seconds = Int(exactly: time.timeIntervalSince1970.rounded(.down)) else {
            throw CryptoError(operation: "verify certificate chain", message: "verification time is not representable")
        }
        // The stack borrows the intermediates' X509 objects; `intermediates` keeps them alive.
        let untrusted = try X509Stack()
        for certificate in intermediates {
            try untrusted.pushBorrowed(certificate.x509.pointer)
        }
        let context = try X509StoreContext()
        try OpenSSL.check(
            X509_STORE_CTX_init(context.pointer, store.pointer, leaf.x509.pointer, untrusted.pointer),
            "X509_STORE_CTX_init")
        let parameters = try OpenSSL.check(X509_STORE_CTX_get0_param(context.pointer), "X509_STORE_CTX_get0_param")
        X509_VERIFY_PARAM_set_time(parameters, seconds)
        X509_VERIFY_PARAM_set_depth(parameters, Int32(Self.maximumChainLength - 2))
        try OpenSSL.check(
            X509_VERIFY_PARAM_clear_flags(parameters, UInt(X509_V_FLAG_PARTIAL_CHAIN)), "X509_VERIFY_PARAM_clear_flags")

        let result = withExtendedLifetime((untrusted, intermediates, leaf)) {
            X509_verify_cert(context.pointer)
        }
        if result != 1 {
            let code = X509_STORE_CTX_get_error(context.pointer)
            // A negative result or no verify error means the check itself broke.
            if result < 0 || code == X509_V_OK {
                throw CryptoError.fromErrorQueue(operation: "X509_verify_cert")
            }
            OpenSSL.discardErrors()
            throw CertificateChainError(code: code, depth: X509_STORE_CTX_get_error_depth(context.pointer))
        }

        // get1: every element carries a reference, dropped when `chain` is freed.
        let chain = X509Stack(
            owningElementsOf: try OpenSSL.check(X509_STORE_CTX_get1_chain(context.pointer), "X509_STORE_CTX_get1_chain"))
        let known = [leaf] + intermediates + roots
        var verified: [Certificate] = []
        for element in chain.elements {
            if let certificate = known.first(where: { $0.x509.pointer == element }) {
                verified.append(certificate)
            } else {
                verified.append(try Certificate(x509: X509Reference(retaining: element)))
            }
        }
        return verified
    }
}
