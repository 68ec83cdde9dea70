import FoundationEssentials

/// The bearer token of an App Store Server API request: an ES256 JWT with `kid` and
/// `typ: JWT` in the header and `iss`, `iat`, `exp`, `aud` and `bid` as claims.
///
/// Apple refuses a token whose `exp` is more than 60 minutes after `iat`; the lifetime is
/// clamped to that, and defaults to 5 minutes so a leaked token is short-lived.
///
/// [Generating JSON Web Tokens for API requests](https://developer.apple.com/documentation/appstoreserverapi/generating-json-web-tokens-for-api-requests)
public enum AppStoreAPIToken {
    public static let audience = "appstoreconnect-v1"
    public static let defaultLifetime: Duration = .seconds(300)
    public static let maximumLifetime: Duration = .seconds(3600)

    /// The claims as Apple names them.
    public struct Claims: Codable, Sendable, Equatable {
        public var iss: String
        public var iat: Int64
        public var exp: Int64
        public var aud: String
        public var bid: String

        public init(iss: String, iat: Int64, exp: Int64, aud: String, bid: String) {
            self.iss = iss
            self.iat = iat
            self.exp = exp
            self.aud = aud
            self.bid = bid
        }
    }

    public static func make(credentials: AppStoreAPICredentials, issuedAt: Date,
                            lifetime: Duration = defaultLifetime) throws(AppStoreAPIError) -> String {
        let seconds = max(1, min(lifetime.components.seconds, maximumLifetime.components.seconds))
        let iat = Int64(issuedAt.timeIntervalSince1970.rounded(.down))
        let claims = Claims(iss: credentials.issuerId, iat: iat, exp: iat + seconds,
                            aud: audience, bid: credentials.bundleId)
        let signer = JWSSigner(key: credentials.privateKey,
                               header: JOSEHeader(alg: "ES256", kid: credentials.keyId, typ: "JWT"))
        do {
            return try signer.sign(claims)
        } catch {
            throw AppStoreAPIError(.tokenSigningFailed, kind: .invalidRequest,
                                   reason: "could not sign the API token: \(error)")
        }
    }
}
