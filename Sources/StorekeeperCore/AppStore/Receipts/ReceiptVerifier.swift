import FoundationEssentials
import OpenSSLCrypto

/// Reads and verifies legacy app receipts (the base64 `appStoreReceiptURL` file old app
/// versions send), in a fixed order: the PKCS#7 container, the payload, then the signature
/// and the signer's chain to the configured legacy roots *at the receipt's creation date*
/// (old receipts outlive their signing certificate), Apple's marker OIDs on the signer and
/// its intermediate, then the bundle id and environment.
///
/// A receipt whose type is Xcode is signed by a local "StoreKit Testing in Xcode"
/// certificate that chains nowhere: it is refused (INVALID_ENVIRONMENT) unless Xcode is an
/// accepted environment, and then only its signature is checked, which the answer says.
public final class ReceiptVerifier {
    public struct Configuration {
        /// The legacy receipt roots (Apple Inc. Root), `APPSTORE_RECEIPT_ROOT_CERTS`.
        public var trustAnchors: TrustAnchors
        /// The apps whose receipts are accepted (the catalog's), each with its environments:
        /// Production, Sandbox, Xcode (a receipt is never LocalTesting).
        public var apps: [CatalogApp]

        public init(trustAnchors: TrustAnchors, apps: [CatalogApp]) {
            self.trustAnchors = trustAnchors
            self.apps = apps
        }

        /// One app.
        public init(trustAnchors: TrustAnchors, bundleId: String, acceptedEnvironments: Set<Environment>) {
            self.init(trustAnchors: trustAnchors,
                      apps: [CatalogApp(bundleId: bundleId, appAppleId: nil, environments: acceptedEnvironments)])
        }

        /// Every environment some app accepts.
        public var acceptedEnvironments: Set<Environment> {
            apps.reduce(into: []) { $0.formUnion($1.environments) }
        }
    }

    /// What a receipt holds and whether it verified: a dry run answers both even when the
    /// verification failed; the migration uses the receipt only when it did.
    public struct Reading: Sendable {
        public let receipt: AppReceipt
        public let verification: Result<Verification, ReceiptError>

        /// The receipt, if it verified.
        public func verified() throws(ReceiptError) -> AppReceipt {
            switch verification {
            case .success: return receipt
            case .failure(let error): throw error
            }
        }
    }

    public struct Verification: Sendable, Equatable {
        /// Production, Sandbox or Xcode.
        public let environment: Environment
        /// False for an Xcode receipt: its signature matched, but nothing vouches for its signer.
        public let chainVerified: Bool
    }

    public let configuration: Configuration

    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// Reads `der` and verifies it. Throws only when there is nothing to read (not PKCS#7
    /// signed data, or a payload that is not a receipt); a receipt that reads but does not
    /// verify comes back with `verification` failed.
    public func read(der: [UInt8]) throws(ReceiptError) -> Reading {
        let container: PKCS7SignedData
        do {
            container = try PKCS7SignedData(der: der)
        } catch {
            throw ReceiptError(.invalidReceiptFormat, "not a PKCS#7 signed receipt: \(error.message)")
        }
        let receipt = try AppReceipt(payload: container.content)
        return Reading(receipt: receipt, verification: Result { () throws(ReceiptError) in try verify(container, receipt) })
    }

    /// Reads `der` and returns the receipt only if it verified.
    public func verify(der: [UInt8]) throws(ReceiptError) -> AppReceipt {
        try read(der: der).verified()
    }

    private func verify(_ container: PKCS7SignedData, _ receipt: AppReceipt) throws(ReceiptError) -> Verification {
        guard let type = receipt.receiptType else {
            throw ReceiptError(.invalidEnvironment, "the receipt names no environment (attribute 0)")
        }
        guard let environment = type.environment else {
            throw ReceiptError(.invalidEnvironment, "unknown receipt type \(type.rawValue.prefix(40))")
        }
        let chainVerified: Bool
        if type == .xcode {
            // Checked before the signature: an Xcode receipt can never chain to Apple, and
            // the useful answer is that Xcode data is not accepted here.
            guard configuration.acceptedEnvironments.contains(environment) else {
                throw ReceiptError(.invalidEnvironment, "environment Xcode is not accepted")
            }
            do {
                try container.verifySignature()
            } catch {
                throw ReceiptError(.verificationFailure, "signature does not match the receipt: \(error.message)")
            }
            chainVerified = false
        } else {
            let store = try configuration.trustAnchors.receiptTrustStore()
            let chain: [Certificate]
            do {
                chain = try container.verify(trustStore: store, at: receipt.creationDate)
            } catch {
                switch error.kind {
                case .invalidSignature:
                    throw ReceiptError(.verificationFailure, "signature does not match the receipt: \(error.message)")
                case .untrustedChain:
                    throw ReceiptError(.invalidCertificate, error.chainError?.description ?? error.description)
                case .internalFailure, .malformed:
                    // The check could not run: nothing is known about the receipt. (`.malformed`
                    // comes only from parsing, never from `verify`; listed for the switch.)
                    throw ReceiptError(.retryableVerificationFailure, error.description)
                }
            }
            try Self.checkAppleMarkers(chain)
            chainVerified = true
        }
        guard let app = configuration.apps.first(where: { $0.bundleId == receipt.bundleId }) else {
            throw ReceiptError(.invalidAppIdentifier,
                               "bundle id \(receipt.bundleId.prefix(200)) is not \(configuration.apps.map(\.bundleId).joined(separator: " or "))")
        }
        guard app.environments.contains(environment) else {
            throw ReceiptError(.invalidEnvironment, "environment \(environment.rawValue) is not accepted")
        }
        return Verification(environment: environment, chainVerified: chainVerified)
    }

    /// Chaining to Apple Inc. Root is not enough: every Apple certificate does, a
    /// developer's own certificates under WWDR included. The signer must carry Apple's
    /// receipt-signing OID and its issuer the WWDR OID (the rule App Store signed data uses).
    private static func checkAppleMarkers(_ chain: [Certificate]) throws(ReceiptError) {
        guard chain.count >= 2 else {
            throw ReceiptError(.invalidCertificate, "the signer's chain has no intermediate")
        }
        do {
            try AppleCertificatePolicy.check(leaf: chain[0], intermediate: chain[1])
        } catch {
            throw ReceiptError(.invalidCertificate, error.reason)
        }
    }
}

extension TrustAnchors {
    /// The trust store, with a failure to load it said in the receipt vocabulary.
    func receiptTrustStore() throws(ReceiptError) -> TrustStore {
        do {
            return try trustStore()
        } catch {
            throw ReceiptError(.retryableVerificationFailure, error.reason)
        }
    }
}
