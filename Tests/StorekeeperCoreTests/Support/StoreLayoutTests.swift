import FoundationEssentials
@testable import StorekeeperCore
import Testing

/// The layout check and the migrations, in process: which steps run, in which order, and
/// what the mark says afterwards.
@Suite struct StoreLayoutTests {
    final class Ran: @unchecked Sendable {
        var steps: [Int] = []
    }

    static let context = StoreMigrationContext(legacyBundleId: "com.example.legacy")

    static func mark(_ store: MemoryStore) throws -> String? {
        try store.get(StoreKeys.layoutVersion).map { String(decoding: $0.bytes, as: UTF8.self) }
    }

    static func migrations(_ ran: Ran) -> [StoreMigration] {
        [1, 2].map { from in
            StoreMigration(from: from, summary: "step \(from)") { (store, _) throws(StoreError) in
                ran.steps.append(from)
                try store.set("migrated:\(from)", Array("1".utf8), expiresIn: nil)
            }
        }
    }

    @Test func anUnmarkedStoreIsMarkedWithTheCurrentVersion() throws {
        let store = MemoryStore()
        try StoreLayout.prepare(store, context: Self.context)
        #expect(try Self.mark(store) == String(StoreLayout.currentVersion))
        let version = try store.get(StoreKeys.layoutVersion)?.version
        try StoreLayout.prepare(store, context: Self.context)
        #expect(try store.get(StoreKeys.layoutVersion)?.version == version, "a current mark is not written again")
    }

    @Test func anOlderStoreRunsTheMissingStepsInOrderThenMovesTheMark() throws {
        let unmarked = MemoryStore()
        let ran = Ran()
        try StoreLayout.prepare(unmarked, to: 3, migrations: Self.migrations(ran), context: Self.context)
        #expect(ran.steps == [1, 2], "no mark is version 1")
        #expect(try Self.mark(unmarked) == "3")

        let atTwo = MemoryStore()
        try atTwo.set(StoreKeys.layoutVersion, Array("2".utf8), expiresIn: nil)
        let second = Ran()
        try StoreLayout.prepare(atTwo, to: 3, migrations: Self.migrations(second), context: Self.context)
        #expect(second.steps == [2])
        #expect(try atTwo.get("migrated:1") == nil)
        #expect(try Self.mark(atTwo) == "3")
    }

    @Test func aNewerStoreIsAConfigurationErrorNamingBothVersions() throws {
        let store = MemoryStore()
        try store.set(StoreKeys.layoutVersion, Array("7".utf8), expiresIn: nil)
        let error = #expect(throws: StoreError.self) { try StoreLayout.prepare(store, context: Self.context) }
        #expect(error?.kind == .invalidConfiguration)
        #expect(error?.disposition == .configuration)
        #expect(error?.reason.contains("layout version 7") == true)
        #expect(error?.reason.contains("up to \(StoreLayout.currentVersion)") == true)
        #expect(try Self.mark(store) == "7")
    }

    @Test func aMarkThatIsNotANumberIsAFailureOfThatRecord() throws {
        let store = MemoryStore()
        try store.set(StoreKeys.layoutVersion, Array("two".utf8), expiresIn: nil)
        let error = #expect(throws: StoreError.self) { try StoreLayout.prepare(store, context: Self.context) }
        #expect(error?.kind == .failed)
    }
}
