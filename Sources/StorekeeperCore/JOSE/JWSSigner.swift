import FoundationEssentials
import OpenSSLCrypto

/// Makes ES256 compact JWS: App Store Server API tokens, Sign in with Apple client secrets,
/// and the signed data `simulate-store` produces for tests.
public struct JWSSigner {
    public let key: ECPrivateKey
    public let header: JOSEHeader

    public init(key: ECPrivateKey, header: JOSEHeader) {
        self.key = key
        self.header = header
    }

    /// Signs `payload` (already-encoded JSON bytes) under this signer's header.
    public func sign(payload: [UInt8]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let headerPart = Base64URL.encode(try encoder.encode(header))
        let signingInput = headerPart + "." + Base64URL.encode(payload)
        let signature = try key.signES256(Array(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// Encodes `claims` as JSON and signs them.
    public func sign(_ claims: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try sign(payload: Array(try encoder.encode(claims)))
    }
}
