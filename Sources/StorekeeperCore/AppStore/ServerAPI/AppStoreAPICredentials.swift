import OpenSSLCrypto

/// The App Store Connect API key that signs every request: its id, the team's issuer id, the
/// app's bundle id and the private key from the `.p8` file.
public struct AppStoreAPICredentials: @unchecked Sendable {
    public let keyId: String
    public let issuerId: String
    public let bundleId: String
    public let privateKey: ECPrivateKey

    public init(keyId: String, issuerId: String, bundleId: String, privateKey: ECPrivateKey) {
        self.keyId = keyId
        self.issuerId = issuerId
        self.bundleId = bundleId
        self.privateKey = privateKey
    }
}
