import Foundation
import StorekeeperCore
import Testing

@Suite("Catalog retention rules: read strictly, every mistake named by its field")
struct CatalogRetentionParsingTests {
    static let uuid = "0a6f3d52-7c1e-4b8a-9e2d-00000000000"

    /// A catalog whose one app has `retention`.
    static func catalog(_ retention: String, products: String? = nil) -> String {
        """
        {"apps": [{"bundleId": "com.example.app", "appAppleId": 1, "retention": \(retention)}],
         "entitlements": {"pro": {}},
         "products": \(products ?? """
            {"m": {"type": "AutoRenewable", "entitlements": ["pro"], "subscriptionGroupIdentifier": "g1"},
             "y": {"type": "AutoRenewable", "entitlements": ["pro"], "subscriptionGroupIdentifier": "g1"},
             "o": {"type": "AutoRenewable", "entitlements": ["pro"], "subscriptionGroupIdentifier": "g2"},
             "life": {"type": "NonConsumable", "entitlements": ["pro"]}}
            """)}
        """
    }

    private func expectMistake(_ retention: String, at field: String, products: String? = nil,
                               sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            let catalog = try Catalog.parse(Array(Self.catalog(retention, products: products).utf8))
            Issue.record("accepted: \(String(describing: catalog.apps[0].retention))", sourceLocation: sourceLocation)
        } catch {
            #expect(error.field == field, "\(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func theFixtureCatalogReadsEveryRuleKind() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/retention/catalog.json")
        let catalog = try Catalog.parse(Array(try Data(contentsOf: url)))
        let retention = try #require(catalog.app(appAppleId: 1_234_567_890)?.retention)
        #expect(retention.defaultMessageIdentifier == "0a6f3d52-7c1e-4b8a-9e2d-000000000000")
        #expect(retention.timeBudgetMilliseconds == CatalogRetention.defaultTimeBudgetMilliseconds)
        #expect(retention.rules.map(\.name) == ["yearly-first-year", "yearly-loyal", "monthly-french-offer", "monthly-to-yearly"])
        #expect(retention.rules[0].history == .init(subscribedDaysAtMost: 364, offerRedeemed: false))
        #expect(retention.rules[0].answer == .promotionalOffer(messageIdentifier: "0a6f3d52-7c1e-4b8a-9e2d-000000000001",
                                                               offerId: "stay-yearly-50", signature: .v2))
        #expect(retention.rules[2].locales == ["fr"])
        #expect(retention.rules[3].answer == .alternateProduct(messageIdentifier: "0a6f3d52-7c1e-4b8a-9e2d-000000000003",
                                                               productId: "com.example.pro.yearly"))
    }

    @Test func messageIdentifiersAreAnsweredLowercase() throws {
        let text = Self.catalog("""
            {"default": {"messageIdentifier": "0A6F3D52-7C1E-4B8A-9E2D-00000000000A"}, "timeBudgetMilliseconds": 80}
            """)
        let retention = try #require(try Catalog.parse(Array(text.utf8)).apps[0].retention)
        #expect(retention.defaultMessageIdentifier == "0a6f3d52-7c1e-4b8a-9e2d-00000000000a")
        #expect(retention.timeBudgetMilliseconds == 80)
        #expect(retention.rules.isEmpty)
    }

    @Test func mistakesAreNamed() {
        let d = "\"default\": {\"messageIdentifier\": \"\(Self.uuid)0\"}"
        let message = "\"message\": {\"messageIdentifier\": \"\(Self.uuid)1\"}"
        expectMistake("{}", at: "apps[0].retention.default")
        expectMistake("{\(d), \"rules\": [{\"name\": \"a\", \"colour\": 1, \(message)}]}", at: "apps[0].retention.rules[0].colour")
        expectMistake("{\"default\": {\"messageIdentifier\": \"hello\"}}", at: "apps[0].retention.default.messageIdentifier")
        expectMistake("{\(d), \"timeBudgetMilliseconds\": 0}", at: "apps[0].retention.timeBudgetMilliseconds")
        expectMistake("{\(d), \"rules\": [{\"name\": \"a\"}]}", at: "apps[0].retention.rules[0]")
        expectMistake("{\(d), \"rules\": [{\"name\": \"a\", \(message), \"alternateProduct\": {\"messageIdentifier\": \"\(Self.uuid)2\", \"productId\": \"y\"}}]}",
                      at: "apps[0].retention.rules[0]")
        expectMistake("{\(d), \"rules\": [{\(message)}]}", at: "apps[0].retention.rules[0].name")
        expectMistake("{\(d), \"rules\": [{\"name\": \"a\", \(message)}, {\"name\": \"a\", \(message)}]}", at: "apps[0].retention.rules[1].name")
        expectMistake("{\(d), \"rules\": [{\"name\": \"a\", \"subscribedDaysAtLeast\": 30, \"subscribedDaysAtMost\": 10, \(message)}]}",
                      at: "apps[0].retention.rules[0]")
        expectMistake("{\(d), \"rules\": [{\"name\": \"a\", \"promotionalOffer\": {\"messageIdentifier\": \"\(Self.uuid)1\", \"offerId\": \"x\", \"signature\": \"V3\"}}]}",
                      at: "apps[0].retention.rules[0].promotionalOffer.signature")
        expectMistake("{\(d), \"rules\": [{\"name\": \"a\", \"promotionalOffer\": {\"messageIdentifier\": \"\(Self.uuid)1\", \"offerId\": \"two words\"}}]}",
                      at: "apps[0].retention.rules[0].promotionalOffer.offerId")
        expectMistake("{\(d), \"rules\": [{\"name\": \"a\", \"products\": [\"nope\"], \(message)}]}", at: "apps[0].retention.rules[0].products[0]")
        expectMistake("{\(d), \"rules\": [{\"name\": \"a\", \"products\": [\"life\"], \(message)}]}", at: "apps[0].retention.rules[0].products[0]")
        expectMistake("{\(d), \"rules\": [{\"name\": \"a\", \"products\": [\"m\"], \"alternateProduct\": {\"messageIdentifier\": \"\(Self.uuid)2\", \"productId\": \"o\"}}]}",
                      at: "apps[0].retention.rules[0].alternateProduct.productId")
    }
}
