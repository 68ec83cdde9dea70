import Foundation
import StorekeeperCore
import Testing

@Suite("Catalog: a product's refundPolicy, read strictly")
struct CatalogRefundPolicyTests {
    static func catalog(_ product: String) -> String {
        """
        {"apps": [{"bundleId": "com.example.app", "environments": ["Sandbox"]}],
         "entitlements": {"pro": {}},
         "products": {"com.example.pro.monthly": {"type": "AutoRenewable", "entitlements": ["pro"]},
                      "com.example.coins100": \(product)}}
        """
    }

    private func mistake(_ product: String, _ kind: CatalogError.Kind, at field: String,
                         sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            let catalog = try Catalog.parse(Array(Self.catalog(product).utf8))
            Issue.record("accepted: \(catalog)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.kind == kind && error.field == field, "\(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func aPolicyWithRulesIsRead() throws {
        let catalog = try Catalog.parse(Array(Self.catalog("""
            {"type": "Consumable", "refundPolicy": {"sampleContentProvided": true, "refundPreference": "GRANT_PRORATED",
             "consumptionPercentage": 0,
             "rules": [{"afterDaysOfUse": 7, "refundPreference": "DECLINE"},
                       {"reasons": ["LEGAL", "FULFILLMENT_ISSUE"], "refundPreference": "GRANT_FULL"}]}}
            """).utf8))
        let policy = try #require(catalog.product("com.example.coins100")?.refundPolicy)
        #expect(policy == CatalogRefundPolicy(sampleContentProvided: true, refundPreference: .grantProrated, consumptionPercentage: 0,
                                              rules: [.init(afterDaysOfUse: 7, refundPreference: .decline),
                                                      .init(reasons: [.legal, .fulfillmentIssue], refundPreference: .grantFull)]))
        #expect(catalog.product("com.example.pro.monthly")?.refundPolicy == nil)
    }

    @Test func mistakesAreNamedByTheirField() {
        let base = #"products["com.example.coins100"].refundPolicy"#
        mistake(#"{"type": "Consumable", "refundPolicy": {"refundPreferences": "DECLINE"}}"#, .unknownKey, at: base + ".refundPreferences")
        mistake(#"{"type": "Consumable", "refundPolicy": {"refundPreference": "REFUSE"}}"#, .invalidValue, at: base + ".refundPreference")
        mistake(#"{"type": "Consumable", "refundPolicy": {"sampleContentProvided": "yes"}}"#, .invalidValue, at: base + ".sampleContentProvided")
        mistake(#"{"type": "Consumable", "refundPolicy": {"consumptionPercentage": 100001}}"#, .invalidValue, at: base + ".consumptionPercentage")
        mistake(#"{"type": "AutoRenewable", "entitlements": ["pro"], "refundPolicy": {"consumptionPercentage": 0}}"#,
                .invalidValue, at: base + ".consumptionPercentage")
        mistake(#"{"type": "Consumable", "refundPolicy": {"rules": [{"refundPreference": "DECLINE"}]}}"#, .missing, at: base + ".rules[0]")
        mistake(#"{"type": "Consumable", "refundPolicy": {"rules": [{"afterDaysOfUse": 3}]}}"#, .missing, at: base + ".rules[0]")
        mistake(#"{"type": "Consumable", "refundPolicy": {"rules": [{"afterDaysOfUse": -1, "refundPreference": "DECLINE"}]}}"#,
                .invalidValue, at: base + ".rules[0].afterDaysOfUse")
        mistake(#"{"type": "Consumable", "refundPolicy": {"rules": [{"reasons": ["BORED"], "refundPreference": "DECLINE"}]}}"#,
                .invalidValue, at: base + ".rules[0].reasons[0]")
        mistake(#"{"type": "Consumable", "refundPolicy": {"rules": [{"reasons": [], "refundPreference": "DECLINE"}]}}"#,
                .invalidValue, at: base + ".rules[0].reasons")
        mistake(#"{"type": "Consumable", "refundPolicy": {"rules": {"afterDaysOfUse": 1}}}"#, .invalidValue, at: base + ".rules")
    }
}
