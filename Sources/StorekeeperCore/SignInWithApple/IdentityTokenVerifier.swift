import FoundationEssentials
import OpenSSLCrypto

/// Verifies Sign in with Apple identity tokens and server-to-server notifications, in a
/// fixed order, each failure with its own code:
///
/// 1. the token is a compact JWS (`malformed_token`);
/// 2. `alg` is RS256, nothing else (`unsupported_algorithm`: `none`, and HS256 "signed"
///    with Apple's public key as the HMAC secret, are refused here, before any key is used);
/// 3. the key chosen by `kid` from Apple's key set (`unknown_key`);
/// 4. the signature (`invalid_signature`); only now are the claims read;
/// 5. `iss` is an accepted issuer (`invalid_issuer`);
/// 6. `aud` is one of the configured client ids (`invalid_audience`);
/// 7. `exp` is in the future (`token_expired`) and `iat` is not (`issued_in_future`), each
///    with the configured leeway, against the time passed in;
/// 8. `nonce`, when one is expected (`nonce_mismatch`).
public struct IdentityTokenVerifier {
    public struct Configuration: Sendable {
        public static let appleIssuer = "https://appleid.apple.com"

        public var acceptedIssuers: [String]
        /// The web Services ID and the apps' bundle ids.
        public var clientIds: [String]
        /// Clock skew allowed on `exp` and `iat`.
        public var leeway: Duration

        public init(clientIds: [String], acceptedIssuers: [String] = [Self.appleIssuer], leeway: Duration = .seconds(60)) {
            self.clientIds = clientIds
            self.acceptedIssuers = acceptedIssuers
            self.leeway = leeway
        }
    }

    public let configuration: Configuration
    private let keys: any IdentityKeyProvider

    public init(configuration: Configuration, keys: any IdentityKeyProvider) {
        self.configuration = configuration
        self.keys = keys
    }

    /// A verified identity token. `expectedNonce` nil skips step 8 (a backend that sent no
    /// nonce); otherwise the token must carry exactly this nonce.
    public func verify(_ token: String, expectedNonce: String?, now: Date) throws(IdentityTokenError) -> VerifiedIdentityToken {
        let payload = try verifiedPayload(token, now: now)
        let claims: IdentityTokenClaims
        do {
            claims = try JSONDecoder().decode(IdentityTokenClaims.self, from: Data(payload))
        } catch {
            throw IdentityTokenError(.malformedToken, "the claims are not those of an identity token")
        }
        try checkIssuer(claims.iss)
        try checkAudience(claims.aud)
        let seconds = now.millisecondsSince1970 / 1000
        let leeway = configuration.leeway.components.seconds
        guard claims.exp.saturatingAdding(leeway) > seconds else {
            throw IdentityTokenError(.tokenExpired, "the token expired at \(claims.exp) (now \(seconds))")
        }
        try checkIssuedAt(claims.iat, now: seconds)
        if let expectedNonce {
            guard let nonce = claims.nonce, ConstantTime.equals(nonce, expectedNonce) else {
                throw IdentityTokenError(.nonceMismatch, claims.nonce == nil ? "the token carries no nonce" : "the token's nonce is not the one sent")
            }
        }
        return VerifiedIdentityToken(claims: claims, payload: payload)
    }

    /// A verified server-to-server notification: the same steps 1 to 7 (`exp` only when
    /// present), then the `events` claim, a JSON string, decoded.
    public func verifyNotification(_ token: String, now: Date) throws(IdentityTokenError) -> AppleIDNotification {
        let payload = try verifiedPayload(token, now: now)
        let notification: AppleIDNotification
        do {
            notification = try AppleIDNotification(payload: payload)
        } catch {
            throw IdentityTokenError(.malformedToken, "the claims are not those of an account notification")
        }
        try checkIssuer(notification.iss)
        try checkAudience(notification.aud)
        let seconds = now.millisecondsSince1970 / 1000
        if let exp = notification.exp, exp.saturatingAdding(configuration.leeway.components.seconds) <= seconds {
            throw IdentityTokenError(.tokenExpired, "the notification expired at \(exp)")
        }
        try checkIssuedAt(notification.iat, now: seconds)
        return notification
    }

    /// Steps 1 to 4: the payload bytes, once the signature is proven.
    private func verifiedPayload(_ token: String, now: Date) throws(IdentityTokenError) -> [UInt8] {
        // The algorithm first, read from the header alone: an `alg: none` token has an empty
        // signature part, and must be refused for its algorithm, not for its shape.
        if let algorithm = Self.declaredAlgorithm(token), algorithm != "RS256" {
            throw IdentityTokenError(.unsupportedAlgorithm, "alg \(algorithm.prefix(20)) is not RS256")
        }
        let jws: CompactJWS
        do {
            jws = try CompactJWS(parsing: token)
        } catch {
            throw IdentityTokenError(.malformedToken, error.reason)
        }
        guard jws.header.alg == "RS256" else {
            throw IdentityTokenError(.unsupportedAlgorithm, "alg \(jws.header.alg.prefix(20)) is not RS256")
        }
        guard jws.header.crit?.isEmpty ?? true else {
            throw IdentityTokenError(.malformedToken, "the header names critical extensions")
        }
        guard let kid = jws.header.kid, !kid.isEmpty else {
            throw IdentityTokenError(.unknownKey, "the header has no kid")
        }
        let jwk = try keys.key(for: kid, now: now)
        let publicKey: RSAPublicKey
        do {
            publicKey = try jwk.rsaPublicKey()
        } catch {
            throw IdentityTokenError(.unknownKey, "the key \(kid.prefix(64)) is not a usable RSA key: \(error.reason)")
        }
        guard publicKey.isValidRS256Signature(jws.signature, for: jws.signingInput) else {
            throw IdentityTokenError(.invalidSignature, "the signature does not match Apple's key \(kid.prefix(64))")
        }
        return jws.payload
    }

    /// The `alg` of a token's header, when the first part decodes as one; nil otherwise
    /// (the full parse then says what is wrong).
    static func declaredAlgorithm(_ token: String) -> String? {
        guard token.utf8.count <= CompactJWS.maximumLength, let dot = token.utf8.firstIndex(of: UInt8(ascii: ".")),
              let header = Base64URL.decode(utf8: token.utf8[..<dot]) else { return nil }
        return (try? JOSEHeader(json: header))?.alg
    }

    private func checkIssuer(_ issuer: String) throws(IdentityTokenError) {
        guard configuration.acceptedIssuers.contains(issuer) else {
            throw IdentityTokenError(.invalidIssuer, "issuer \(issuer.prefix(100)) is not accepted")
        }
    }

    private func checkAudience(_ audience: [String]) throws(IdentityTokenError) {
        guard audience.contains(where: configuration.clientIds.contains) else {
            throw IdentityTokenError(.invalidAudience, "audience \(audience.joined(separator: ",").prefix(100)) is none of the configured client ids")
        }
    }

    private func checkIssuedAt(_ iat: Int64, now seconds: Int64) throws(IdentityTokenError) {
        guard iat <= seconds.saturatingAdding(configuration.leeway.components.seconds) else {
            throw IdentityTokenError(.issuedInFuture, "the token is issued at \(iat), after now (\(seconds))")
        }
    }

    /// What a native app puts in the token's `nonce`: the SHA-256 of its raw nonce, in hex.
    public static func hashedNonce(_ rawNonce: String) -> String {
        Hex.encode(Digest.sha256(Array(rawNonce.utf8)))
    }
}

/// An identity token whose signature and claims passed every check.
public struct VerifiedIdentityToken: Sendable {
    public let claims: IdentityTokenClaims
    /// The payload as Apple signed it.
    public let payload: [UInt8]
}
