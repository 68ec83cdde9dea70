import FoundationEssentials
import OpenSSLCrypto

/// The JWS signatures of StoreKit's newer purchase options: a promotional offer
/// (`Product.PurchaseOption.promotionalOffer(_:compactJWS:)`), an introductory offer
/// eligibility override (`.introductoryOfferEligibility(compactJWS:)`) and an Advanced
/// Commerce in-app request. ES256 under the subscription offer key, header `alg`, `kid`,
/// `typ: JWT`; claims `iss` (the issuer id), `bid`, `aud` (by kind), `iat` (seconds), `nonce`
/// (a new UUID) and the kind's own claims.
///
/// As Apple's four server libraries make them (`PromotionalOfferV2SignatureCreator`,
/// `IntroductoryOfferEligibilitySignatureCreator`, the Advanced Commerce in-app signature
/// creator). Where they differ: the nonce is lowercase as Python's `uuid4`, Node's
/// `randomUUID` and Java's `UUID.toString` write it (Swift's `uuidString` is uppercase), and
/// the `request` claim is standard padded base64 of the request's compact JSON as Swift,
/// Node and Java encode it (Python's `json.dumps` puts a space after `:` and `,`; the JSON
/// is the same value).
///
/// [Generating JWS to sign App Store requests](https://developer.apple.com/documentation/storekit/generating-jws-to-sign-app-store-requests)
public enum OfferSignatureJWS {
    /// What is signed, by kind.
    public enum Kind: Sendable, Equatable {
        /// `transactionId`: any of the customer's transactions (or their appTransactionId);
        /// optional, recommended.
        case promotionalOffer(productId: String, offerIdentifier: String, transactionId: String?)
        case introductoryOfferEligibility(productId: String, allowIntroductoryOffer: Bool, transactionId: String)
        /// `requestJSON`: the request's JSON as the caller wrote it, compact.
        case advancedCommerceInApp(requestJSON: [UInt8])

        /// The `aud` claim Apple expects for the kind.
        public var audience: String {
            switch self {
            case .promotionalOffer: "promotional-offer"
            case .introductoryOfferEligibility: "introductory-offer-eligibility"
            case .advancedCommerceInApp: "advanced-commerce-api"
            }
        }
    }

    /// The claims of one signature, as Apple's libraries name them.
    public struct Claims: Encodable, Sendable, Equatable {
        public var iss: String
        public var bid: String
        public var aud: String
        public var iat: Int64
        public var nonce: String
        public var productId: String?
        public var offerIdentifier: String?
        public var transactionId: String?
        public var allowIntroductoryOffer: Bool?
        public var request: String?

        public init(kind: Kind, issuerId: String, bundleId: String, issuedAt: Int64, nonce: String) {
            iss = issuerId
            bid = bundleId
            aud = kind.audience
            iat = issuedAt
            self.nonce = nonce
            switch kind {
            case .promotionalOffer(let product, let offer, let transaction):
                productId = product
                offerIdentifier = offer
                transactionId = transaction
            case .introductoryOfferEligibility(let product, let allow, let transaction):
                productId = product
                allowIntroductoryOffer = allow
                transactionId = transaction
            case .advancedCommerceInApp(let json):
                request = Data(json).base64EncodedString()
            }
        }
    }

    /// The compact JWS for `kind`, dated `issuedAt` (Apple compares it with its own clock:
    /// pass the real wall time), with a fresh nonce.
    public static func sign(_ kind: Kind, key: ECPrivateKey, keyId: String, issuerId: String, bundleId: String,
                            issuedAt: Date) throws -> String {
        let claims = Claims(kind: kind, issuerId: issuerId, bundleId: bundleId,
                            issuedAt: Int64(issuedAt.timeIntervalSince1970.rounded(.down)),
                            nonce: UUID().uuidString.lowercased())
        return try JWSSigner(key: key, header: JOSEHeader(alg: "ES256", kid: keyId, typ: "JWT")).sign(claims)
    }
}
