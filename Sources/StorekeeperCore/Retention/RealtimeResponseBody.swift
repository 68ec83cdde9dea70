import FoundationEssentials

/// The answer to a realtime request: exactly one of a message, a switch-plan option or a
/// promotional offer, each naming a message approved in advance (Upload Message). Field names
/// as Apple's documentation and server libraries spell them.
///
/// [RealtimeResponseBody](https://developer.apple.com/documentation/retentionmessaging/realtimeresponsebody)
public struct RealtimeResponseBody: Encodable, Sendable, Equatable {
    public var message: Message?
    public var alternateProduct: AlternateProduct?
    public var promotionalOffer: PromotionalOffer?

    public init(message: Message? = nil, alternateProduct: AlternateProduct? = nil, promotionalOffer: PromotionalOffer? = nil) {
        self.message = message
        self.alternateProduct = alternateProduct
        self.promotionalOffer = promotionalOffer
    }

    /// [message](https://developer.apple.com/documentation/retentionmessaging/message)
    public struct Message: Encodable, Sendable, Equatable {
        public var messageIdentifier: String

        public init(messageIdentifier: String) {
            self.messageIdentifier = messageIdentifier
        }
    }

    /// A message with a switch-plan option.
    /// [alternateProduct](https://developer.apple.com/documentation/retentionmessaging/alternateproduct)
    public struct AlternateProduct: Encodable, Sendable, Equatable {
        public var messageIdentifier: String
        public var productId: String

        public init(messageIdentifier: String, productId: String) {
            self.messageIdentifier = messageIdentifier
            self.productId = productId
        }
    }

    /// A message with a promotional offer, signed one way or the other (V2, the JWS, is
    /// Apple's recommendation).
    /// [promotionalOffer](https://developer.apple.com/documentation/retentionmessaging/promotionaloffer)
    public struct PromotionalOffer: Encodable, Sendable, Equatable {
        public var messageIdentifier: String
        public var promotionalOfferSignatureV2: String?
        public var promotionalOfferSignatureV1: PromotionalOfferSignatureV1?

        public init(messageIdentifier: String, promotionalOfferSignatureV2: String? = nil,
                    promotionalOfferSignatureV1: PromotionalOfferSignatureV1? = nil) {
            self.messageIdentifier = messageIdentifier
            self.promotionalOfferSignatureV2 = promotionalOfferSignatureV2
            self.promotionalOfferSignatureV1 = promotionalOfferSignatureV1
        }
    }

    /// The original promotional offer signature, as the realtime response carries it.
    /// [promotionalOfferSignatureV1](https://developer.apple.com/documentation/retentionmessaging/promotionaloffersignaturev1)
    public struct PromotionalOfferSignatureV1: Encodable, Sendable, Equatable {
        /// Base64 DER of the ECDSA signature.
        public var encodedSignature: String
        public var productId: String
        /// A lowercase UUID.
        public var nonce: String
        /// Milliseconds since 1970.
        public var timestamp: Int64
        public var keyId: String
        public var offerIdentifier: String
        public var appAccountToken: String?

        public init(_ signature: PromotionalOfferSignature, productId: String, offerIdentifier: String, appAccountToken: String?) {
            encodedSignature = signature.signature
            self.productId = productId
            nonce = signature.nonce
            timestamp = signature.timestamp
            keyId = signature.keyId
            self.offerIdentifier = offerIdentifier
            self.appAccountToken = appAccountToken
        }
    }
}
