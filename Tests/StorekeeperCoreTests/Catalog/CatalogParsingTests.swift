import Foundation
import StorekeeperCore
import Testing

@Suite("Catalog file: strict reading, every mistake named by its field")
struct CatalogParsingTests {
    /// The issue's example, with the app's App Apple ID.
    static let example = """
        {"apps": [{"bundleId": "com.example.app", "appAppleId": 1234567890,
                   "environments": ["Production", "Sandbox"], "sandboxGrants": true}],
         "entitlements": {"pro": {"description": "Paid features"}},
         "products": {"com.example.pro.monthly": {"entitlements": ["pro"]},
                      "com.example.pro.yearly": {"entitlements": ["pro"]},
                      "com.example.lifetime": {"entitlements": ["pro"]},
                      "com.example.pass30": {"type": "NonRenewingSubscription", "durationDays": 30, "entitlements": ["pro"]},
                      "com.example.coins100": {"type": "Consumable"}}}
        """

    static let twoApps = """
        {"apps": [{"bundleId": "com.example.a", "appAppleId": 1, "transfer": "move-to-latest"},
                  {"bundleId": "com.example.b", "environments": ["Sandbox"], "sandboxGrants": false}],
         "entitlements": {"pro": {}, "plus": {}},
         "products": {"a.monthly": {"bundleId": "com.example.a", "entitlements": ["pro"]},
                      "b.monthly": {"bundleId": "com.example.b", "entitlements": ["plus", "pro"]}}}
        """

    private func parse(_ text: String) throws(CatalogError) -> Catalog {
        try Catalog.parse(Array(text.utf8))
    }

    /// The mistake `text` makes, which must be of `kind` in `field`.
    private func expectMistake(_ text: String, _ kind: CatalogError.Kind, at field: String,
                               sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            let catalog = try parse(text)
            Issue.record("accepted: \(catalog)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.kind == kind, "\(error)", sourceLocation: sourceLocation)
            #expect(error.field == field, "\(error)", sourceLocation: sourceLocation)
            #expect(error.description.hasPrefix(field.isEmpty ? "" : "\(field): "), sourceLocation: sourceLocation)
        }
    }

    @Test func readsTheIssuesExample() throws {
        let catalog = try parse(Self.example)
        let app = try #require(catalog.app(bundleId: "com.example.app"))
        #expect(app.appAppleId == 1_234_567_890)
        #expect(app.environments == [.production, .sandbox])
        #expect(app.sandboxGrants && app.transfer == .keepFirst)
        #expect(catalog.entitlements["pro"]?.description == "Paid features")
        #expect(catalog.products.count == 5)
        #expect(catalog.product("com.example.pass30")?.type == .nonRenewingSubscription)
        #expect(catalog.product("com.example.pass30")?.durationDays == 30)
        #expect(catalog.product("com.example.coins100")?.entitlements == [])
        #expect(catalog.product("com.example.lifetime")?.type == nil)
        #expect(catalog.entitlements(grantedBy: "com.example.pro.yearly") == ["pro"])
        #expect(catalog.product("com.example.unknown") == nil)
        #expect(!catalog.productsImplied)
    }

    @Test func readsSeveralAppsEachWithItsOwnRules() throws {
        let catalog = try parse(Self.twoApps)
        #expect(catalog.apps.map(\.bundleId) == ["com.example.a", "com.example.b"])
        #expect(catalog.app(bundleId: "com.example.a")?.transfer == .moveToLatest)
        #expect(catalog.app(bundleId: "com.example.a")?.environments == [.production, .sandbox])
        let b = try #require(catalog.app(bundleId: "com.example.b"))
        #expect(b.appAppleId == nil && b.environments == [.sandbox] && !b.sandboxGrants)
        #expect(!b.grants(in: .sandbox) && b.grants(in: .production))
        #expect(catalog.product("b.monthly")?.bundleId == "com.example.b")
        #expect(catalog.entitlements(grantedBy: "b.monthly") == ["plus", "pro"])
    }

    @Test func refusesWhatIsNotStrictJSON() {
        expectMistake("{\"apps\": [", .notJSON, at: "apps[0]")
        expectMistake("[]", .invalidValue, at: "")
        expectMistake("\u{FEFF}{}", .notJSON, at: "")
        expectMistake(#"{"apps": [{"bundleId": "com.a", "bundleId": "com.b", "environments": ["Sandbox"]}]}"#,
                      .notJSON, at: "apps[0].bundleId")
    }

    @Test func aProductListedTwiceOrForAnotherAppIsInTwoApps() {
        expectMistake(#"{"apps": [{"bundleId": "com.a", "environments": ["Sandbox"]}], "products": {"p": {}, "p": {}}}"#,
                      .productInTwoApps, at: #"products["p"]"#)
        expectMistake(#"{"apps": [{"bundleId": "com.a", "environments": ["Sandbox"]}], "products": {"p": {"bundleId": "com.b"}}}"#,
                      .unknownApp, at: #"products["p"].bundleId"#)
    }

    @Test func unknownKeysAreTyposAtEveryLevel() {
        expectMistake(#"{"apps": [{"bundleId": "com.a", "appAppleId": 1}], "product": {}}"#, .unknownKey, at: "product")
        expectMistake(#"{"apps": [{"bundleID": "com.a"}]}"#, .unknownKey, at: "apps[0].bundleID")
        expectMistake(#"{"apps": [{"bundleId": "com.a", "appAppleId": 1}], "entitlements": {"pro": {"descripton": "x"}}}"#,
                      .unknownKey, at: #"entitlements["pro"].descripton"#)
        expectMistake(#"{"apps": [{"bundleId": "com.a", "appAppleId": 1}], "products": {"p": {"entitlement": ["pro"]}}}"#,
                      .unknownKey, at: #"products["p"].entitlement"#)
    }

    @Test func aSubscriptionGroupBelongsToAutoRenewableProductsOnly() throws {
        let app = #"{"apps": [{"bundleId": "com.a", "appAppleId": 1}], "entitlements": {"pro": {}}, "#
        let catalog = try parse(app + #""products": {"m": {"entitlements": ["pro"], "subscriptionGroupIdentifier": "21000001"},"#
                                + #" "y": {"type": "AutoRenewable", "entitlements": ["pro"], "subscriptionGroupIdentifier": "21000001"},"#
                                + #" "l": {"type": "NonConsumable", "entitlements": ["pro"]}}}"#)
        #expect(catalog.product("m")?.subscriptionGroupIdentifier == "21000001")
        #expect(catalog.product("y")?.subscriptionGroupIdentifier == "21000001")
        #expect(catalog.product("l")?.subscriptionGroupIdentifier == nil)
        for type in ["NonConsumable", "Consumable", "NonRenewingSubscription"] {
            expectMistake(app + #""products": {"x": {"type": ""# + type + #"", "subscriptionGroupIdentifier": "1"}, "m": {"entitlements": ["pro"]}}}"#,
                          .invalidValue, at: #"products["x"].subscriptionGroupIdentifier"#)
        }
        for bad in ["\"\"", "1", "\"" + String(repeating: "9", count: 65) + "\""] {
            expectMistake(app + #""products": {"m": {"entitlements": ["pro"], "subscriptionGroupIdentifier": "# + bad + "}}}",
                          .invalidValue, at: #"products["m"].subscriptionGroupIdentifier"#)
        }
    }

    @Test func productTypesAndDurations() {
        let app = #"{"apps": [{"bundleId": "com.a", "appAppleId": 1}], "#
        expectMistake(app + #""products": {"com.x": {"type": "Subscription"}}}"#, .unknownProductType, at: #"products["com.x"].type"#)
        expectMistake(app + #""products": {"com.x": {"type": 1}}}"#, .invalidValue, at: #"products["com.x"].type"#)
        expectMistake(app + #""products": {"com.x": {"durationDays": 30}}}"#, .durationNotAllowed, at: #"products["com.x"].durationDays"#)
        expectMistake(app + #""products": {"com.x": {"type": "AutoRenewable", "durationDays": 30}}}"#,
                      .durationNotAllowed, at: #"products["com.x"].durationDays"#)
        for bad in ["0", "-1", "1.5", "\"30\"", "36501"] {
            expectMistake(app + #""products": {"com.x": {"type": "NonRenewingSubscription", "durationDays": "# + bad + "}}}",
                          .invalidValue, at: #"products["com.x"].durationDays"#)
        }
        expectMistake(app + #""entitlements": {"pro": {}}, "products": {"c": {"type": "Consumable", "entitlements": ["pro"]}}}"#,
                      .invalidValue, at: #"products["c"].entitlements"#)
    }

    @Test func entitlementsAreDeclaredAndGranted() {
        let app = #"{"apps": [{"bundleId": "com.a", "appAppleId": 1}], "#
        expectMistake(app + #""entitlements": {"pro": {}}, "products": {"p": {"entitlements": ["pro", "prro"]}}}"#,
                      .undeclaredEntitlement, at: #"products["p"].entitlements[1]"#)
        expectMistake(app + #""products": {"p": {"entitlements": ["pro"]}}}"#,
                      .undeclaredEntitlement, at: #"products["p"].entitlements[0]"#)
        expectMistake(app + #""entitlements": {"pro": {}, "ads-free": {}}, "products": {"p": {"entitlements": ["pro"]}}}"#,
                      .entitlementNotGranted, at: #"entitlements["ads-free"]"#)
        expectMistake(app + #""entitlements": {"pro": {}}, "products": {"p": {"entitlements": ["pro", "pro"]}}}"#,
                      .invalidValue, at: #"products["p"].entitlements[1]"#)
        expectMistake(app + #""entitlements": {"pro": {"description": 3}}, "products": {"p": {"entitlements": ["pro"]}}}"#,
                      .invalidValue, at: #"entitlements["pro"].description"#)
    }

    @Test func withSeveralAppsEachProductNamesItsApp() {
        expectMistake(#"{"apps": [{"bundleId": "com.a", "appAppleId": 1}, {"bundleId": "com.b", "appAppleId": 2}], "products": {"p": {}}}"#,
                      .bundleIdRequired, at: #"products["p"]"#)
        expectMistake(#"{"apps": [{"bundleId": "com.a", "appAppleId": 1}, {"bundleId": "com.a", "appAppleId": 2}]}"#,
                      .duplicateApp, at: "apps[1].bundleId")
        expectMistake(#"{"apps": [{"bundleId": "com.a", "appAppleId": 1}, {"bundleId": "com.b", "appAppleId": 1}]}"#,
                      .duplicateApp, at: "apps[1].appAppleId")
    }

    @Test func appsAreNamedCompletely() {
        expectMistake(#"{"products": {}}"#, .missing, at: "apps")
        expectMistake(#"{"apps": []}"#, .missing, at: "apps")
        expectMistake(#"{"apps": {}}"#, .invalidValue, at: "apps")
        expectMistake(#"{"apps": [{"appAppleId": 1}]}"#, .missing, at: "apps[0].bundleId")
        expectMistake(#"{"apps": [{"bundleId": ""}]}"#, .invalidValue, at: "apps[0].bundleId")
        expectMistake(#"{"apps": [{"bundleId": "com.a:b", "appAppleId": 1}]}"#, .invalidBundleId, at: "apps[0].bundleId")
        expectMistake(#"{"apps": [{"bundleId": "com.a/b", "appAppleId": 1}]}"#, .invalidBundleId, at: "apps[0].bundleId")
        expectMistake(#"{"apps": [{"bundleId": "com.a"}]}"#, .appAppleIdRequired, at: "apps[0].appAppleId")
        expectMistake(#"{"apps": [{"bundleId": "com.a", "environments": ["Production"]}]}"#, .appAppleIdRequired, at: "apps[0].appAppleId")
        expectMistake(#"{"apps": [{"bundleId": "com.a", "appAppleId": 0}]}"#, .invalidValue, at: "apps[0].appAppleId")
        expectMistake(#"{"apps": [{"bundleId": "com.a", "appAppleId": "1"}]}"#, .invalidValue, at: "apps[0].appAppleId")
    }

    @Test func environmentsSandboxGrantsAndTransfer() {
        let app = #"{"apps": [{"bundleId": "com.a", "appAppleId": 1, "#
        expectMistake(app + #""environments": ["Production", "Prod"]}]}"#, .unknownEnvironment, at: "apps[0].environments[1]")
        expectMistake(app + #""environments": []}]}"#, .missing, at: "apps[0].environments")
        expectMistake(app + #""environments": "Sandbox"}]}"#, .invalidValue, at: "apps[0].environments")
        expectMistake(app + #""environments": ["Sandbox", "Sandbox"]}]}"#, .invalidValue, at: "apps[0].environments[1]")
        expectMistake(app + #""sandboxGrants": "false"}]}"#, .invalidValue, at: "apps[0].sandboxGrants")
        expectMistake(app + #""sandboxGrants": 0}]}"#, .invalidValue, at: "apps[0].sandboxGrants")
        expectMistake(app + #""transfer": "keep-last"}]}"#, .unknownTransferPolicy, at: "apps[0].transfer")
        expectMistake(app + #""transfer": true}]}"#, .invalidValue, at: "apps[0].transfer")
    }

    @Test func fieldPathsQuoteNamesThatNeedIt() {
        expectMistake(#"{"apps": [{"bundleId": "com.a", "appAppleId": 1}], "products": {"a\"b": {"type": "X"}}}"#,
                      .unknownProductType, at: #"products["a\"b"].type"#)
    }
}

@Suite("Catalog file: the example in infra/")
struct CatalogExampleTests {
    static let path: String = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("infra/catalog/catalog.example.json").path

    @Test func theExampleIsACompleteCatalog() throws {
        let bytes = try #require(FileManager.default.contents(atPath: Self.path), "infra/catalog/catalog.example.json is missing")
        let catalog = try Catalog.parse(Array(bytes))
        #expect(catalog.apps.count == 2)
        #expect(Set(catalog.apps.map(\.sandboxGrants)) == [true, false])
        #expect(Set(catalog.apps.map(\.transfer)) == Set(TransferPolicy.allCases))
        #expect(Set(catalog.products.values.compactMap(\.type)) == Set(ProductType.allCases))
        #expect(catalog.products.values.contains { $0.type == nil }, "a product of the type Apple signs")
        #expect(catalog.products.values.contains { $0.durationDays != nil })
        #expect(Set(catalog.webhooks.map(\.format)) == Set(WebhookEndpoint.Format.allCases))
        #expect(catalog.products.values.contains { $0.subscriptionGroupIdentifier != nil }, "a subscription group (sign-offer)")
        #expect(catalog.products.values.contains { $0.refundPolicy?.rules.isEmpty == false }, "a refund policy with rules")
        #expect(catalog.apps.contains { $0.retention?.rules.isEmpty == false }, "retention rules (retention-message)")
    }
}
