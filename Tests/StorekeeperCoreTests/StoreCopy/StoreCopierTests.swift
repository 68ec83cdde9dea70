import StorekeeperCore
import Testing

/// The copier's resumption in process: a target that dies mid-copy (MemoryStore's kill switch)
/// and comes back goes on from the last page saved, for the same source only.
@Suite("StoreCopier: a copy that dies goes on from its last saved page")
struct StoreCopierTests {
    static func source() throws -> MemoryStore {
        let store = MemoryStore()
        for index in 0..<500 { try store.set("value:\(String(index + 1000))", Array("v\(index)".utf8), expiresIn: nil) }
        return store
    }

    /// A target whose first write of the 451st value dies (the third page, after two saved).
    static func dyingTarget() -> MemoryStore {
        let target = MemoryStore()
        target.killAtWrite = { $0 == "value:1450" }
        return target
    }

    @Test func aCopyKilledMidwayResumesFromItsProgressAndVerifies() throws {
        let source = try Self.source()
        let target = Self.dyingTarget()
        let copier = StoreCopier(source: source, target: target, sourceIdentity: "one", time: SystemTime())
        #expect(throws: StoreError.self) { try copier.copy() }
        target.restart()
        #expect(try target.get(StoreKeys.copyProgress) != nil, "the killed copy left no progress")
        let resumed = try copier.copy()
        #expect(resumed.resumed && resumed.pages == 3)
        // The first two pages' counts were kept; the third page's first 50 were written before the kill.
        #expect(resumed.copied.values == 450 && resumed.skipped.values == 50, "\(resumed)")
        #expect(try copier.verify(limit: 5).passed)
        #expect(try target.get(StoreKeys.copyProgress) == nil)
    }

    @Test func theProgressOfAnotherSourceIsNotUsed() throws {
        let source = try Self.source()
        let target = Self.dyingTarget()
        #expect(throws: StoreError.self) {
            try StoreCopier(source: source, target: target, sourceIdentity: "one", time: SystemTime()).copy()
        }
        target.restart()
        let other = try StoreCopier(source: source, target: target, sourceIdentity: "two", time: SystemTime()).copy()
        #expect(!other.resumed && other.pages == 3)
        #expect(other.copied.values == 50 && other.skipped.values == 450, "\(other)")
    }
}
