import FoundationEssentials
import OpenSSLCrypto

/// Verifies anything the App Store signs, in one fixed order:
///
/// 1. shape: compact JWS, header `alg` ES256, `x5c` of exactly three certificates, JSON payload
///    (INVALID_JWT_FORMAT);
/// 2. chain: leaf and intermediate parsed, Apple's OIDs, path to a configured root at the
///    validation time (INVALID_CERTIFICATE);
/// 3. signature with the leaf's key (VERIFICATION_FAILURE);
/// 4. claims: bundle id and App Apple ID (INVALID_APP_IDENTIFIER), then environment
///    (INVALID_ENVIRONMENT).
///
/// Data from an Xcode or LocalTesting environment is not signed by Apple: it skips steps 2–3
/// only when that environment is explicitly accepted, and is rejected otherwise.
///
/// One verifier serves a whole process: a chain once verified is remembered (with the window
/// in which its certificates are all valid), so a notification's three JWS, or a batch of
/// thousands, pay for the chain once.
///
/// https://developer.apple.com/documentation/appstoreservernotifications/jwsdecodedheader
public final class SignedDataVerifier {
    /// What this deployment trusts and accepts.
    public struct Configuration {
        /// Trust anchors: Apple's roots in production, the test PKI's root in tests.
        public var trustAnchors: TrustAnchors
        /// The app's bundle id; every transaction, notification and app transaction must carry it.
        public var bundleId: String
        /// The numeric App Apple ID, checked on Production data. Required when Production is accepted.
        public var appAppleId: Int64?
        /// The environments whose data is accepted (a production server also serves App Review's sandbox purchases).
        public var acceptedEnvironments: Set<String>

        public init(trustAnchors: TrustAnchors, bundleId: String, appAppleId: Int64?, acceptedEnvironments: Set<String>) {
            self.trustAnchors = trustAnchors
            self.bundleId = bundleId
            self.appAppleId = appAppleId
            self.acceptedEnvironments = acceptedEnvironments
        }
    }

    /// Environments whose data Apple does not sign with its PKI.
    public static let unsignedEnvironments: Set<String> = ["Xcode", "LocalTesting"]

    public let configuration: Configuration
    private var chains = VerifiedChainCache()

    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// Verifies `jws` as `type` (inferred from the payload when nil). `now` is used when the
    /// payload carries no signing time.
    public func verify(_ jws: String, as type: SignedDataType? = nil, now: Date) throws(VerificationError) -> VerifiedSignedData {
        let parsed: CompactJWS
        do {
            parsed = try CompactJWS(parsing: jws)
        } catch {
            throw VerificationError(.invalidJWTFormat, error.reason)
        }
        guard parsed.header.alg == "ES256" else {
            throw VerificationError(.invalidJWTFormat, "algorithm \(parsed.header.alg) is not ES256")
        }
        guard let x5c = parsed.header.x5c, x5c.count == AppleCertificatePolicy.chainLength else {
            throw VerificationError(.invalidJWTFormat, "x5c must hold exactly \(AppleCertificatePolicy.chainLength) certificates")
        }
        if let critical = parsed.header.crit, !critical.isEmpty {
            throw VerificationError(.invalidJWTFormat, "unsupported critical header parameters")
        }
        let claims: SignedPayloadClaims
        do {
            claims = try JSONDecoder().decode(SignedPayloadClaims.self, from: Data(parsed.payload))
        } catch {
            throw VerificationError(.invalidJWTFormat, "payload is not a JSON object of the expected shape")
        }
        guard let resolvedType = type ?? claims.inferredType else {
            throw VerificationError(.invalidJWTFormat, "payload is not a notification, transaction, renewal info or app transaction")
        }
        let environment = claims.environment(for: resolvedType)
        let signingTime = claims.signingTime(for: resolvedType)

        let skipSignature = environment.map {
            Self.unsignedEnvironments.contains($0) && configuration.acceptedEnvironments.contains($0)
        } ?? false
        if !skipSignature {
            let leafKey = try verifiedLeafKey(x5c: x5c, at: signingTime ?? now)
            guard leafKey.isValidES256Signature(parsed.signature, for: parsed.signingInput) else {
                throw VerificationError(.verificationFailure, "signature does not match the leaf certificate")
            }
        }

        try checkAppIdentity(claims, type: resolvedType, environment: environment)
        guard let environment, configuration.acceptedEnvironments.contains(environment) else {
            throw VerificationError(.invalidEnvironment, "environment \(environment ?? "(none)") is not accepted")
        }

        var transactionInfo: [UInt8]?
        var renewalInfo: [UInt8]?
        if resolvedType == .notification {
            // The nested JWS are Apple-signed in their own right: verify them, never trust them
            // because the envelope verified.
            if let signed = claims.data?.signedTransactionInfo {
                transactionInfo = try verify(signed, as: .transaction, now: now).payload
            }
            if let signed = claims.data?.signedRenewalInfo {
                renewalInfo = try verify(signed, as: .renewalInfo, now: now).payload
            }
        }
        return VerifiedSignedData(
            type: resolvedType,
            environment: environment,
            payload: parsed.payload,
            signedDate: signingTime,
            transactionInfo: transactionInfo,
            renewalInfo: renewalInfo,
            signatureSkipped: skipSignature
        )
    }

    /// The leaf's public key once the chain is proven at `time`, from the cache when the same
    /// chain was proven before and `time` lies where all its certificates are valid.
    private func verifiedLeafKey(x5c: [String], at time: Date) throws(VerificationError) -> ECPublicKey {
        if let key = chains.leafKey(leaf: x5c[0], intermediate: x5c[1], at: time) {
            return key
        }
        guard let leafDER = Self.decodeStandardBase64(x5c[0]),
              let intermediateDER = Self.decodeStandardBase64(x5c[1])
        else { throw VerificationError(.invalidCertificate, "x5c entry is not base64") }
        let leaf: Certificate
        let intermediate: Certificate
        do {
            leaf = try Certificate(der: leafDER)
            intermediate = try Certificate(der: intermediateDER)
        } catch {
            throw VerificationError(.invalidCertificate, "x5c certificate does not parse")
        }
        try AppleCertificatePolicy.check(leaf: leaf, intermediate: intermediate)
        let chain: [Certificate]
        do {
            chain = try configuration.trustAnchors.trustStore().verifyChain(leaf: leaf, intermediates: [intermediate], at: time)
        } catch let error as VerificationError {
            throw error
        } catch {
            throw VerificationError(.invalidCertificate, "\(error)")
        }
        let key: ECPublicKey
        do {
            key = try leaf.publicKey()
        } catch {
            throw VerificationError(.invalidCertificate, "leaf key is not P-256")
        }
        chains.insert(
            leaf: x5c[0], intermediate: x5c[1], key: key,
            validFrom: chain.map(\.notBefore).max() ?? leaf.notBefore,
            validUntil: chain.map(\.notAfter).min() ?? leaf.notAfter
        )
        return key
    }

    private func checkAppIdentity(_ claims: SignedPayloadClaims, type: SignedDataType, environment: String?) throws(VerificationError) {
        let bundleId: String?
        let appAppleId: Int64?
        switch type {
        case .notification:
            bundleId = claims.notificationScope?.bundleId
            appAppleId = claims.notificationScope?.appAppleId
        case .appTransaction:
            bundleId = claims.bundleId
            appAppleId = claims.appAppleId
        case .transaction:
            bundleId = claims.bundleId
            appAppleId = nil
        case .renewalInfo:
            // Renewal info carries no bundle id; its environment is still checked.
            return
        }
        guard bundleId == configuration.bundleId else {
            throw VerificationError(.invalidAppIdentifier, "bundle id \(bundleId ?? "(none)") is not \(configuration.bundleId)")
        }
        // Apple omits appAppleId from sandbox data; in Production it must be this app's.
        // (Production data on a server that does not accept Production is refused by the
        // environment check that follows, which says so more plainly.)
        if environment == "Production", configuration.acceptedEnvironments.contains("Production"),
           type == .notification || type == .appTransaction {
            guard let expected = configuration.appAppleId, appAppleId == expected else {
                throw VerificationError(.invalidAppIdentifier, "App Apple ID \(appAppleId.map(String.init) ?? "(none)") is not this app's")
            }
        }
    }

    /// `x5c` entries are standard base64 with padding (RFC 7515 §4.1.6), not base64url.
    private static func decodeStandardBase64(_ text: String) -> [UInt8]? {
        Data(base64Encoded: text).map { Array($0) }
    }
}
