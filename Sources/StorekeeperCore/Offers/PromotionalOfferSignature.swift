import FoundationEssentials
import OpenSSLCrypto

/// The original promotional offer signature: ECDSA P-256 with SHA-256 over the bundle id, key
/// id, product id, offer id, app account token (lowercase), nonce (lowercase UUID) and
/// timestamp (milliseconds), joined by U+2063 (INVISIBLE SEPARATOR), base64 DER. What
/// StoreKit's `Product.PurchaseOption.promotionalOffer(offerID:keyID:nonce:signature:timestamp:)`
/// and `SKPaymentDiscount` take; Apple accepts it for 24 hours after `timestamp`.
///
/// [Generating a signature for promotional offers](https://developer.apple.com/documentation/storekit/generating-a-signature-for-promotional-offers)
public struct PromotionalOfferSignature: Encodable, Sendable, Equatable {
    /// The separator Apple's message uses; no signed field may contain it.
    public static let separator = "\u{2063}"

    public var keyId: String
    /// A lowercase UUID, new for every signature.
    public var nonce: String
    /// Milliseconds since 1970.
    public var timestamp: Int64
    /// Standard base64 of the DER ECDSA signature.
    public var signature: String

    /// The fields of one signature, as the app will pass them to StoreKit.
    public struct Input: Sendable, Equatable {
        public var bundleId: String
        public var keyId: String
        public var productId: String
        public var offerId: String
        /// Empty when the app sets none.
        public var appAccountToken: String
        public var nonce: String
        public var timestamp: Int64

        public init(bundleId: String, keyId: String, productId: String, offerId: String, appAccountToken: String,
                    nonce: String, timestamp: Int64) {
            self.bundleId = bundleId
            self.keyId = keyId
            self.productId = productId
            self.offerId = offerId
            self.appAccountToken = appAccountToken
            self.nonce = nonce
            self.timestamp = timestamp
        }

        /// The signed message: token and nonce lowercased, as Apple's server compares them.
        public var message: String {
            [bundleId, keyId, productId, offerId, appAccountToken.lowercased(), nonce.lowercased(), String(timestamp)]
                .joined(separator: PromotionalOfferSignature.separator)
        }
    }

    /// Signs `input` with `key` (the subscription offer key).
    public static func sign(_ input: Input, key: ECPrivateKey) throws(CryptoError) -> PromotionalOfferSignature {
        let der = try key.signECDSASHA256DER(Array(input.message.utf8))
        return PromotionalOfferSignature(keyId: input.keyId, nonce: input.nonce.lowercased(), timestamp: input.timestamp,
                                         signature: Data(der).base64EncodedString())
    }
}
