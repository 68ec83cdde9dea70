import FoundationEssentials
import OpenSSLCrypto

/// The `client_secret` Apple wants with every `/auth/token` and `/auth/revoke` call: a
/// short-lived ES256 JWT signed with the Sign in with Apple key (.p8), `kid` in the header,
/// `iss` the team id, `sub` the client id, `aud` https://appleid.apple.com.
/// https://developer.apple.com/documentation/accountorganizationaldatasharing/creating-a-client-secret
public struct ClientSecret {
    public static let audience = "https://appleid.apple.com"
    /// Apple allows up to six months; a secret made per request needs minutes.
    public static let lifetime: Duration = .seconds(300)

    public let teamId: String
    public let keyId: String
    private let key: @Sendable () throws -> ECPrivateKey

    public init(teamId: String, keyId: String, key: ECPrivateKey) {
        self.teamId = teamId
        self.keyId = keyId
        self.key = { key }
    }

    /// The key is loaded only when a secret is made (and on every make): for callers that
    /// seldom need one and should not pay for reading the .p8 otherwise.
    public init(teamId: String, keyId: String, loadingKey: @escaping @Sendable () throws -> ECPrivateKey) {
        self.teamId = teamId
        self.keyId = keyId
        self.key = loadingKey
    }

    struct Claims: Encodable {
        let iss: String
        let iat: Int64
        let exp: Int64
        let aud: String
        let sub: String
    }

    /// A fresh secret for `clientId`, valid from `now` for `lifetime`.
    public func make(clientId: String, now: Date) throws -> String {
        let issuedAt = now.millisecondsSince1970 / 1000
        let signer = JWSSigner(key: try key(), header: JOSEHeader(alg: "ES256", kid: keyId))
        return try signer.sign(Claims(iss: teamId, iat: issuedAt, exp: issuedAt + Self.lifetime.components.seconds,
                                      aud: Self.audience, sub: clientId))
    }
}
