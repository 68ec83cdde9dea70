import StorekeeperCore
import Testing

@Suite("A store that opens itself on first use")
struct SelfOpeningStoreTests {
    /// Counts how often it is asked to open, and fails while `failing` is set.
    final class Opener {
        var opens = 0
        var failing = false
        let store = MemoryStore()

        func open() throws(StoreError) -> any KeyValueStore {
            opens += 1
            if failing { throw StoreError(.unavailable, "connection refused") }
            return store
        }
    }

    @Test func opensOnTheFirstOperationAndOnlyOnce() throws {
        let opener = Opener()
        let store = SelfOpeningStore(opening: opener.open)
        #expect(opener.opens == 0)
        #expect(!store.isOpen)
        try store.set("a", [1], expiresIn: nil)
        #expect(try store.get("a")?.bytes == [1])
        #expect(try store.setIfAbsent("b", [2], expiresIn: nil))
        #expect(opener.opens == 1)
        #expect(store.isOpen)
        #expect(try opener.store.get("b")?.bytes == [2], "operations reach the opened store")
    }

    @Test func aStoreThatWillNotOpenFailsTheOperationAndIsTriedAgain() throws {
        let opener = Opener()
        opener.failing = true
        let store = SelfOpeningStore(opening: opener.open)
        let error = try #require(throws: StoreError.self) { try store.get("a") }
        #expect(error.isRetryable)
        #expect(!store.isOpen)
        opener.failing = false
        #expect(try store.get("a") == nil)
        #expect(opener.opens == 2)
    }
}
