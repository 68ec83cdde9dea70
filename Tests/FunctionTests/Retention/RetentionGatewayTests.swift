import Foundation
import StorekeeperCore
import Testing
import TestSupport

/// retention-message behind both shipped gateways: a public route (no token), Apple's POST
/// answered in Apple's shape, a forged request refused with the verification code.
@Suite("retention-message through the gateways")
struct RetentionGatewayTests {
    @Test(arguments: Gateway.Kind.allCases)
    func applesRealtimeRequestIsAnsweredWithoutAToken(_ kind: Gateway.Kind) throws {
        let world = RetentionWorld()
        try world.subscribe("com.example.pro.yearly", daysAgo: 90)
        let gateway = try Gateway.start(environment: world.environment, kind: kind)
        defer { gateway.stop() }
        func post(_ signedPayload: String) throws -> Gateway.Answer {
            let body = try JSONSerialization.data(withJSONObject: ["signedPayload": signedPayload])
            return try gateway.send(HTTPRequest(method: "POST", url: gateway.baseURL + "/appstore/retention",
                                                headers: [("Content-Type", "application/json")], body: Array(body)))
        }
        let offer = try post(try RetentionWorld.request(product: "com.example.pro.yearly"))
        #expect(offer.status == 200, "\(offer)")
        let promotional = try #require(offer.json["promotionalOffer"] as? [String: Any], "\(offer)")
        #expect(promotional["messageIdentifier"] as? String == "0a6f3d52-7c1e-4b8a-9e2d-000000000001")
        #expect(try DecodedJWS(try #require(promotional["promotionalOfferSignatureV2"] as? String)).verifies(with: OfferWorld.offerPublicKey))

        let switchPlan = try post(try RetentionWorld.request(product: "com.example.pro.monthly"))
        #expect((switchPlan.json["alternateProduct"] as? [String: Any])?["productId"] as? String == "com.example.pro.yearly")

        let genuine = try RetentionWorld.request(product: "com.example.pro.monthly").split(separator: ".").map(String.init)
        let other = try RetentionWorld.request(product: "com.example.pro.yearly").split(separator: ".").map(String.init)
        let forged = try post([genuine[0], other[1], genuine[2]].joined(separator: "."))
        #expect(forged.status == 400, "\(forged)")
        #expect(forged.errorCode == "VERIFICATION_FAILURE")
        let log = gateway.logLines()
        #expect(log.contains { $0["event"] as? String == "retention_request_rejected" }, "\(log)")
        #expect(!log.contains { "\($0)".contains(genuine[2]) || "\($0)".contains(other[1]) }, "no JWS in the log")
    }
}
