import Foundation
import StorekeeperCore
import Testing

@Suite("Catalog file: the webhooks section, every mistake named by its field")
struct CatalogWebhookParsingTests {
    private func parse(_ webhooks: String) throws(CatalogError) -> Catalog {
        try Catalog.parse(Array(#"{"apps": [{"bundleId": "com.example.app", "environments": ["Sandbox"]}], "webhooks": \#(webhooks)}"#.utf8))
    }

    @Test func endpointsWithFiltersAndFormats() throws {
        let catalog = try parse("""
            [{"name": "backend", "url": "https://api.example.com/hooks", "secretEnv": "BACKEND_WEBHOOK_SECRET"},
             {"name": "chat", "url": "https://hooks.slack.com/services/T/B/x", "secretEnv": "CHAT_SECRET",
              "types": ["REFUND", "TRANSFER"], "environments": ["Production"], "format": "slack"}]
            """)
        #expect(catalog.webhooks == [
            CatalogWebhook(name: "backend", url: "https://api.example.com/hooks", secretEnv: "BACKEND_WEBHOOK_SECRET"),
            CatalogWebhook(name: "chat", url: "https://hooks.slack.com/services/T/B/x", secretEnv: "CHAT_SECRET",
                           types: ["REFUND", "TRANSFER"], environments: ["Production"], format: .slack),
        ])
    }

    @Test func mistakesAreNamedByTheirField() {
        let cases: [(String, CatalogError.Kind, String)] = [
            (#"[{"url": "https://a.example/h", "secretEnv": "S"}]"#, .missing, "webhooks[0].name"),
            (#"[{"name": "a", "url": "ftp://a.example/h", "secretEnv": "S"}]"#, .invalidValue, "webhooks[0].url"),
            (#"[{"name": "a", "url": "https://a.example/h", "secret": "whsec_x"}]"#, .unknownKey, "webhooks[0].secret"),
            (#"[{"name": "a", "url": "https://a.example/h", "secretEnv": "whsec_abc"}]"#, .invalidValue, "webhooks[0].secretEnv"),
            (#"[{"name": "A b", "url": "https://a.example/h", "secretEnv": "S"}]"#, .invalidValue, "webhooks[0].name"),
            (#"[{"name": "a", "url": "https://a.example/h", "secretEnv": "S", "types": ["REFUNDED"]}]"#, .unknownEventType, "webhooks[0].types[0]"),
            (#"[{"name": "a", "url": "https://a.example/h", "secretEnv": "S", "environments": ["Prod"]}]"#, .unknownEnvironment, "webhooks[0].environments[0]"),
            (#"[{"name": "a", "url": "https://a.example/h", "secretEnv": "S", "format": "teams"}]"#, .invalidValue, "webhooks[0].format"),
            (#"[{"name": "a", "url": "https://a.example/h", "secretEnv": "S"}, {"name": "a", "url": "https://b.example/h", "secretEnv": "T"}]"#,
             .duplicateWebhook, "webhooks[1].name"),
        ]
        for (webhooks, kind, field) in cases {
            #expect(throws: CatalogError(kind, field: field, "")) { try parse(webhooks) }
        }
    }
}
