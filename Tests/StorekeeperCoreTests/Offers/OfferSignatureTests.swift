import FoundationEssentials
import OpenSSLCrypto
import StorekeeperCore
import Testing

@Suite("Offers: the signed message and the claims, in process")
struct OfferSignatureTests {
    static let input = PromotionalOfferSignature.Input(
        bundleId: "com.example.app", keyId: "KEY1", productId: "com.example.pro.monthly", offerId: "spring",
        appAccountToken: "8E1A2F47-0C55-4C0B-9A3E-5D7B6C1F2E90", nonce: "5E3CB149-B34B-4B52-85D0-206C0C8BD0E2",
        timestamp: 1_796_146_655_123)

    @Test func theOriginalMessageIsAppleFieldsJoinedByTheInvisibleSeparator() {
        let expected = "com.example.app\u{2063}KEY1\u{2063}com.example.pro.monthly\u{2063}spring\u{2063}"
            + "8e1a2f47-0c55-4c0b-9a3e-5d7b6c1f2e90\u{2063}5e3cb149-b34b-4b52-85d0-206c0c8bd0e2\u{2063}1796146655123"
        #expect(Array(Self.input.message.utf8) == Array(expected.utf8))
        #expect(Array("\u{2063}".utf8) == [0xE2, 0x81, 0xA3])
    }

    @Test func theOriginalSignatureIsDEROverTheMessage() throws {
        let key = try ECPrivateKey.generateP256()
        let signed = try PromotionalOfferSignature.sign(Self.input, key: key)
        #expect(signed.nonce == "5e3cb149-b34b-4b52-85d0-206c0c8bd0e2")
        #expect(signed.keyId == "KEY1" && signed.timestamp == 1_796_146_655_123)
        let der = try #require(Base64.decode(signed.signature))
        #expect(der.first == 0x30 && der.count >= 8 && der.count <= 72)
    }

    @Test func eachKindHasItsAudienceAndOnlyItsClaims() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        func names(_ kind: OfferSignatureJWS.Kind) throws -> [String] {
            let claims = OfferSignatureJWS.Claims(kind: kind, issuerId: "iss", bundleId: "bid", issuedAt: 1, nonce: "n")
            let object = try JSONDecoder().decode([String: JSONValue].self, from: try encoder.encode(claims))
            return object.keys.sorted()
        }
        let base = ["aud", "bid", "iat", "iss", "nonce"]
        #expect(try names(.promotionalOffer(productId: "p", offerIdentifier: "o", transactionId: nil)) == (base + ["offerIdentifier", "productId"]).sorted())
        #expect(try names(.promotionalOffer(productId: "p", offerIdentifier: "o", transactionId: "t")) == (base + ["offerIdentifier", "productId", "transactionId"]).sorted())
        #expect(try names(.introductoryOfferEligibility(productId: "p", allowIntroductoryOffer: false, transactionId: "t"))
                == (base + ["allowIntroductoryOffer", "productId", "transactionId"]).sorted())
        #expect(try names(.advancedCommerceInApp(requestJSON: Array("{}".utf8))) == (base + ["request"]).sorted())
        let request = OfferSignatureJWS.Claims(kind: .advancedCommerceInApp(requestJSON: Array(#"{"a":1}"#.utf8)), issuerId: "i",
                                               bundleId: "b", issuedAt: 1, nonce: "n").request
        #expect(request == "eyJhIjoxfQ==", "standard base64, padded")
        #expect(OfferSignatureJWS.Kind.introductoryOfferEligibility(productId: "p", allowIntroductoryOffer: true, transactionId: "t").audience
                == "introductory-offer-eligibility")
    }
}
