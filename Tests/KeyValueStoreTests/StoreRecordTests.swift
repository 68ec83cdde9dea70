import Foundation
import StorekeeperCore
import Testing

/// The typed helpers on the store port, on each real store: one spelling per record, and a
/// read-modify-write that loses no update.
@Suite struct StoreRecordTests {
    struct Note: StoreRecord, Equatable {
        var text: String
        var count: Int
    }

    @Test(arguments: StoreBackend.all)
    func aRecordIsSortedJSONWithSlashesUnescaped(backend: StoreBackend) throws {
        let store = try backend.makeStore()
        try store.set("note:1", record: Note(text: "a/b", count: 2), expiresIn: nil)
        #expect(try store.get("note:1")?.bytes == Array(#"{"count":2,"text":"a/b"}"#.utf8))
        #expect(try store.get("note:1", as: Note.self) == Note(text: "a/b", count: 2))
        #expect(try store.get("note:absent", as: Note.self) == nil)
    }

    @Test(arguments: StoreBackend.all)
    func aRecordThatDoesNotDecodeIsAFailureOfThatRecord(backend: StoreBackend) throws {
        let store = try backend.makeStore()
        try store.set("note:bad", Array("not json".utf8), expiresIn: nil)
        let error = #expect(throws: StoreError.self) { try store.get("note:bad", as: Note.self) }
        #expect(error?.kind == .failed)
        let seen = try store.update("note:bad", as: Note.self, attempts: 1, unreadable: .absent) { (current) throws(StoreError) in
            .write(Note(text: "fresh", count: 0), current)
        }
        #expect(seen == nil, "unreadable: .absent reads a damaged value as no record")
        #expect(try store.get("note:bad", as: Note.self)?.text == "fresh")
    }

    @Test(arguments: StoreBackend.all)
    func anUpdateThatLostTheRaceDecidesAgainOnTheWinnersValue(backend: StoreBackend) throws {
        let store = try backend.makeStore()
        try store.set("note:race", record: Note(text: "start", count: 0), expiresIn: nil)
        var rounds = 0
        let answer = try store.update("note:race", as: Note.self, attempts: 4) { (current) throws(StoreError) in
            rounds += 1
            if rounds == 1 {
                // Another writer gets in between this read and this write.
                try store.set("note:race", record: Note(text: "other", count: 10), expiresIn: nil)
            }
            var note = current ?? Note(text: "none", count: 0)
            note.count += 1
            return .write(note, note.count)
        }
        #expect(rounds == 2)
        #expect(answer == 11)
        #expect(try store.get("note:race", as: Note.self) == Note(text: "other", count: 11))
    }

    @Test(arguments: StoreBackend.all)
    func everyRoundLostIsRetryableUnlessTheCallerSaysOtherwise(backend: StoreBackend) throws {
        let store = try backend.makeStore()
        var rounds = 0
        let contend = { (current: Note?) throws(StoreError) -> StoreUpdate<Note, String> in
            rounds += 1
            try store.set("note:busy", record: Note(text: "other", count: rounds), expiresIn: nil)
            return .write(Note(text: "mine", count: 0), "written")
        }
        let error = #expect(throws: StoreError.self) { try store.update("note:busy", as: Note.self, attempts: 3, contend) }
        #expect(error?.kind == .unavailable)
        #expect(rounds == 3)
        #expect(try store.update("note:busy", as: Note.self, attempts: 2, contended: { "gave up" }, contend) == "gave up")
        #expect(try store.get("note:busy", as: Note.self)?.text == "other")
    }

    @Test(arguments: StoreBackend.all)
    func keepWritesNothing(backend: StoreBackend) throws {
        let store = try backend.makeStore()
        let answer = try store.update("note:kept", as: Note.self, attempts: 1) { (current) throws(StoreError) -> StoreUpdate<Note, Bool> in
            .keep(current == nil)
        }
        #expect(answer)
        #expect(try store.get("note:kept") == nil)
    }

    @Test(arguments: StoreBackend.all)
    func theRateBucketKeepsItsHandWrittenSpelling(backend: StoreBackend) throws {
        let store = try backend.makeStore()
        let limiter = SharedRateLimiter(store: store, key: "appstore:ratelimit:bytes", requestsPerSecond: 2, burst: 2)
        #expect(try limiter.tryAcquire(now: Date(timeIntervalSince1970: 1_800_000_000)) == .proceed)
        let bytes = try #require(try store.get("appstore:ratelimit:bytes")?.bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"tokens":1.0,"updatedAt":1800000000000}"#)
    }
}
