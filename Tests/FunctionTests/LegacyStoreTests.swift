import Foundation
import SQLiteStore
import StorekeeperCore
import Testing

/// A store written by the build before records carried their app (layout 1, made by
/// Tests/Fixtures/legacy-store/make-legacy-store.sh with that build's binaries) is opened by
/// today's binaries: it is migrated once, and get-entitlements answers what that build answered.
@Suite struct LegacyStoreTests {
    static let fixtures = FunctionBinary.repositoryRoot.appendingPathComponent("Tests/Fixtures/legacy-store")

    /// A copy of the fixture store to migrate: the committed file stays as layout 1 wrote it.
    static func copyOfTheLegacyStore() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("legacy-\(UUID().uuidString).db").path
        try FileManager.default.copyItem(atPath: fixtures.appendingPathComponent("legacy-v1.db").path, toPath: path)
        return path
    }

    static func answers() throws -> [String: Any] {
        let data = try Data(contentsOf: fixtures.appendingPathComponent("answers-v1.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static func environment(_ path: String, now: Any) -> [String: String] {
        ["STORE_URL": "sqlite:" + path, "STOREKEEPER_NOW": "\(now)", "APPSTORE_BUNDLE_ID": TestPKI.bundleId]
    }

    /// Every field the old answer had, with the same value: new fields may be added, none
    /// may change or go.
    static func expectSameAnswer(_ new: Any, as old: Any, at path: String = "", sourceLocation: SourceLocation = #_sourceLocation) {
        switch (old, new) {
        case (let old as [String: Any], let new as [String: Any]):
            for (key, value) in old {
                guard let newValue = new[key] else {
                    Issue.record("\(path).\(key) is gone", sourceLocation: sourceLocation)
                    continue
                }
                expectSameAnswer(newValue, as: value, at: path + "." + key, sourceLocation: sourceLocation)
            }
        case (let old as [Any], let new as [Any]):
            #expect(old.count == new.count, "\(path) has \(new.count) items, had \(old.count)", sourceLocation: sourceLocation)
            for (index, pair) in zip(old, new).enumerated() {
                expectSameAnswer(pair.1, as: pair.0, at: path + "[\(index)]", sourceLocation: sourceLocation)
            }
        default:
            #expect("\(new)" == "\(old)", "\(path) changed", sourceLocation: sourceLocation)
        }
    }

    @Test func aStoreFromLayoutOneAnswersTheSameEntitlements() throws {
        let path = try Self.copyOfTheLegacyStore()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let answers = try Self.answers()
        let now = try #require(answers["now"])
        let requests: [(String, String)] = [
            ("byUser", #"{"userId": "user-1"}"#),
            ("byToken", #"{"appAccountToken": "2b1c7f6e-0d55-4c3a-9a57-5f3b2f1e9c11"}"#),
            ("byOriginalTransactionId", #"{"originalTransactionId": "3000000001"}"#),
        ]
        for (name, request) in requests {
            let result = try FunctionBinary(name: "get-entitlements").run(stdin: Data(request.utf8),
                                                                           environment: Self.environment(path, now: now))
            #expect(result.exitCode == 0, "\(name): \(result.stderrText)")
            let answer = try JSONSerialization.jsonObject(with: result.stdout)
            Self.expectSameAnswer(answer, as: try #require(answers[name]), at: name)
        }

        // Migrated once, to the keys that carry the app; nothing of layout 1 is left behind.
        let store = try SQLiteStore(path: path)
        #expect(try store.get(StoreKeys.layoutVersion).map { String(decoding: $0.bytes, as: UTF8.self) } == String(StoreLayout.currentVersion))
        let subscriptions = try EntitlementRepository(store: store).allSubscriptions()
        #expect(subscriptions.map(\.originalTransactionId) == ["3000000001", "3000000101", "3000000201"])
        #expect(Set(subscriptions.map(\.bundleId)) == [TestPKI.bundleId])
        #expect(try store.setMembers("appstore:entitlements").isEmpty)
        #expect(try store.get("appstore:entitlement:3000000001") == nil)
        #expect(try store.get("appstore:owner:3000000001") == nil)
        #expect(try store.setMembers("user:user-1:transactions").isEmpty)
        #expect(try store.setMembers("appstore:token:2b1c7f6e-0d55-4c3a-9a57-5f3b2f1e9c11:transactions").isEmpty)
        #expect(try EntitlementRepository(store: store).owner(of: .testApp("3000000001")) == "user-1")
    }

    /// Without the app it belonged to, the records cannot be moved: the functions refuse to
    /// start (exit 78, naming what to set) rather than answer from an empty store.
    @Test func aLegacyStoreWithoutItsAppIsAConfigurationError() throws {
        let path = try Self.copyOfTheLegacyStore()
        defer { try? FileManager.default.removeItem(atPath: path) }
        var environment = Self.environment(path, now: 1_784_160_000)
        environment["APPSTORE_BUNDLE_ID"] = nil
        let result = try FunctionBinary(name: "get-entitlements").run(stdin: Data(#"{"userId": "user-1"}"#.utf8),
                                                                       environment: environment)
        #expect(result.exitCode == 78, "\(result.stderrText)")
        #expect(result.stderrText.contains("APPSTORE_BUNDLE_ID"), "the log says what to set: \(result.stderrText)")
        let store = try SQLiteStore(path: path)
        #expect(try store.setMembers("appstore:entitlements").count == 3, "nothing was moved")
    }
}
