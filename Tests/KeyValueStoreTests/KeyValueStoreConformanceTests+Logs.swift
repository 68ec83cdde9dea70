import StorekeeperCore
import StorekeeperTesting
import Testing

/// The append-only log (`appendToLog` and the reads beside it), as `KeyValueStore` words it.
extension KeyValueStoreConformanceTests {
    static let log = "{events}"

    static func entry(_ id: String, stream: String? = nil, expected: Int64 = 0, at recordedAt: Int64 = 1_000,
                      bytes: [UInt8]? = nil) -> LogAppend {
        LogAppend(id: id, stream: stream, expectedStreamVersion: expected, recordedAt: recordedAt,
                  bytes: bytes ?? Array("entry \(id)".utf8))
    }

    /// Appends entries without a stream, e-1 ... e-count, recorded at the given times (or 1000 + n).
    static func appendPlain(_ count: Int, _ store: any KeyValueStore, recordedAt: [Int64]? = nil) throws {
        for index in 1...count {
            let outcome = try store.appendToLog(log, entry("e-\(index)", at: recordedAt?[index - 1] ?? Int64(1_000 + index)))
            guard case .appended = outcome else { throw StoreError(.failed, "e-\(index): \(outcome)") }
        }
    }

    static func sequences(_ entries: [LogEntry]) -> [Int64] { entries.map(\.sequence) }

    @Test(arguments: StoreBackend.withMemoryStore)
    func anEmptyLogHoldsNothing(backend: StoreBackend) throws {
        let store = try backend.makeStore()
        #expect(try store.logBounds(Self.log) == LogBounds(first: nil, last: 0))
        #expect(try store.readLog(Self.log, after: 0, limit: 100) == [])
        #expect(try store.logSequence(Self.log, id: "e-1") == nil)
        #expect(try store.logStreamVersion(Self.log, stream: "user-1") == 0)
        #expect(try store.trimLog(Self.log, recordedBefore: .max, limit: 100) == 0)
    }

    @Test(arguments: StoreBackend.withMemoryStore)
    func sequencesStartAtOneAndEntriesReadBackWhole(backend: StoreBackend) throws {
        let store = try backend.makeStore()
        #expect(try store.appendToLog(Self.log, Self.entry("a", stream: "user-1", at: 10)) == .appended(sequence: 1, streamVersion: 1))
        #expect(try store.appendToLog(Self.log, Self.entry("b", at: 20)) == .appended(sequence: 2, streamVersion: 0))
        #expect(try store.appendToLog(Self.log, Self.entry("c", stream: "user-1", expected: 1, at: 5)) == .appended(sequence: 3, streamVersion: 2))
        #expect(try store.readLog(Self.log, after: 0, limit: 10) == [
            LogEntry(sequence: 1, id: "a", stream: "user-1", streamVersion: 1, recordedAt: 10, bytes: Array("entry a".utf8)),
            LogEntry(sequence: 2, id: "b", stream: nil, streamVersion: 0, recordedAt: 20, bytes: Array("entry b".utf8)),
            LogEntry(sequence: 3, id: "c", stream: "user-1", streamVersion: 2, recordedAt: 5, bytes: Array("entry c".utf8)),
        ])
        #expect(try store.logBounds(Self.log) == LogBounds(first: 1, last: 3))
        #expect(try store.logSequence(Self.log, id: "b") == 2)
        #expect(try store.logSequence(Self.log, id: "d") == nil)
        // Logs are apart: another one starts at 1 and sees none of these.
        #expect(try store.appendToLog("{other}", Self.entry("a", stream: "user-1")) == .appended(sequence: 1, streamVersion: 1))
        #expect(try store.logBounds("{other}") == LogBounds(first: 1, last: 1))
        #expect(try store.logBounds(Self.log) == LogBounds(first: 1, last: 3))
    }

    @Test(arguments: StoreBackend.withMemoryStore)
    func aKnownIdAppendsNothingAndAnswersItsFirstSequence(backend: StoreBackend) throws {
        let store = try backend.makeStore()
        try Self.appendPlain(2, store)
        #expect(try store.appendToLog(Self.log, Self.entry("x", stream: "user-1")) == .appended(sequence: 3, streamVersion: 1))
        // Whatever the second append says (other bytes, another stream, a stale version): the
        // id decides, before any stream check, and nothing moves.
        #expect(try store.appendToLog(Self.log, Self.entry("x", stream: "user-1")) == .duplicate(sequence: 3))
        #expect(try store.appendToLog(Self.log, Self.entry("x", stream: "user-2", bytes: [9])) == .duplicate(sequence: 3))
        #expect(try store.appendToLog(Self.log, Self.entry("e-1")) == .duplicate(sequence: 1))
        #expect(try store.logBounds(Self.log) == LogBounds(first: 1, last: 3))
        #expect(try store.logStreamVersion(Self.log, stream: "user-1") == 1)
        #expect(try store.logStreamVersion(Self.log, stream: "user-2") == 0)
        #expect(try store.readLog(Self.log, after: 2, limit: 10).map(\.bytes) == [Array("entry x".utf8)])
        #expect(try store.appendToLog(Self.log, Self.entry("y")) == .appended(sequence: 4, streamVersion: 0))
    }

    @Test(arguments: StoreBackend.withMemoryStore)
    func aStreamAppendsOnlyAtTheVersionItIsAt(backend: StoreBackend) throws {
        let store = try backend.makeStore()
        #expect(try store.appendToLog(Self.log, Self.entry("a1", stream: "user-a")) == .appended(sequence: 1, streamVersion: 1))
        #expect(try store.appendToLog(Self.log, Self.entry("b1", stream: "user-b")) == .appended(sequence: 2, streamVersion: 1))
        // Built from a stale read: refused, nothing written, the id still free.
        #expect(try store.appendToLog(Self.log, Self.entry("a2", stream: "user-a", expected: 0)) == .streamMoved(currentVersion: 1))
        #expect(try store.appendToLog(Self.log, Self.entry("a2", stream: "user-a", expected: 2)) == .streamMoved(currentVersion: 1))
        #expect(try store.appendToLog(Self.log, Self.entry("c1", stream: "user-c", expected: 1)) == .streamMoved(currentVersion: 0))
        #expect(try store.logSequence(Self.log, id: "a2") == nil)
        #expect(try store.logBounds(Self.log) == LogBounds(first: 1, last: 2))
        #expect(try store.logStreamVersion(Self.log, stream: "user-a") == 1)
        #expect(try store.logStreamVersion(Self.log, stream: "user-c") == 0)
        // Entries of no stream move no stream.
        #expect(try store.appendToLog(Self.log, Self.entry("n1")) == .appended(sequence: 3, streamVersion: 0))
        #expect(try store.appendToLog(Self.log, Self.entry("a2", stream: "user-a", expected: 1)) == .appended(sequence: 4, streamVersion: 2))
        #expect(try store.logStreamVersion(Self.log, stream: "user-a") == 2)
        #expect(try store.logStreamVersion(Self.log, stream: "user-b") == 1)
        #expect(try store.readLog(Self.log, after: 0, limit: 10).map(\.streamVersion) == [1, 1, 0, 2])
    }

    @Test(arguments: StoreBackend.withMemoryStore)
    func readingAfterASequenceTakesAtMostTheLimitOldestFirst(backend: StoreBackend) throws {
        let store = try backend.makeStore()
        try Self.appendPlain(10, store)
        #expect(Self.sequences(try store.readLog(Self.log, after: 0, limit: 3)) == [1, 2, 3])
        #expect(Self.sequences(try store.readLog(Self.log, after: 3, limit: 3)) == [4, 5, 6])
        #expect(try store.readLog(Self.log, after: 3, limit: 3).map(\.id) == ["e-4", "e-5", "e-6"])
        #expect(Self.sequences(try store.readLog(Self.log, after: 8, limit: 5)) == [9, 10])
        #expect(try store.readLog(Self.log, after: 10, limit: 5) == [])
        #expect(try store.readLog(Self.log, after: 1_000, limit: 5) == [])
        #expect(try store.readLog(Self.log, after: 0, limit: 0) == [])
        #expect(try store.readLog(Self.log, after: 0, limit: -1) == [])
        #expect(Self.sequences(try store.readLog(Self.log, after: -5, limit: 2)) == [1, 2])
        #expect(Self.sequences(try store.readLog(Self.log, after: 0, limit: .max)) == Array(1...10))
    }

    @Test(arguments: StoreBackend.withMemoryStore)
    func trimmingTakesTheOldestRecordedBeforeAndNeverReusesASequence(backend: StoreBackend) throws {
        let store = try backend.makeStore()
        // e-5 was recorded early but sits behind newer ones: trimming goes by order, and stops.
        try Self.appendPlain(6, store, recordedAt: [100, 200, 300, 400, 150, 500])
        #expect(try store.appendToLog(Self.log, Self.entry("s-1", stream: "user-1", at: 600)) == .appended(sequence: 7, streamVersion: 1))
        #expect(try store.trimLog(Self.log, recordedBefore: 250, limit: 100) == 2)
        #expect(try store.logBounds(Self.log) == LogBounds(first: 3, last: 7))
        #expect(try store.logSequence(Self.log, id: "e-1") == nil)
        #expect(try store.logSequence(Self.log, id: "e-3") == 3)
        #expect(Self.sequences(try store.readLog(Self.log, after: 0, limit: 2)) == [3, 4])
        #expect(try store.trimLog(Self.log, recordedBefore: 250, limit: 100) == 0)
        // The limit bounds one call; the next call goes on from there.
        #expect(try store.trimLog(Self.log, recordedBefore: 10_000, limit: 2) == 2)
        #expect(try store.logBounds(Self.log) == LogBounds(first: 5, last: 7))
        #expect(try store.trimLog(Self.log, recordedBefore: 10_000, limit: 0) == 0)
        #expect(try store.trimLog(Self.log, recordedBefore: 10_000, limit: 100) == 3)
        #expect(try store.logBounds(Self.log) == LogBounds(first: nil, last: 7))
        #expect(try store.readLog(Self.log, after: 0, limit: 100) == [])
        // Emptied, the log goes on counting; a forgotten id is a new entry; a stream keeps its version.
        #expect(try store.logStreamVersion(Self.log, stream: "user-1") == 1)
        #expect(try store.appendToLog(Self.log, Self.entry("e-1", at: 700)) == .appended(sequence: 8, streamVersion: 0))
        #expect(try store.appendToLog(Self.log, Self.entry("s-2", stream: "user-1", expected: 1, at: 700)) == .appended(sequence: 9, streamVersion: 2))
        #expect(try store.logBounds(Self.log) == LogBounds(first: 8, last: 9))
        #expect(Self.sequences(try store.readLog(Self.log, after: 0, limit: 100)) == [8, 9])
    }

    @Test(arguments: StoreBackend.withMemoryStore)
    func entriesKeepEveryByteIdAndStream(backend: StoreBackend) throws {
        let store = try backend.makeStore()
        let everyByte = (0...255).map { UInt8($0) } + [0, 0]
        let large = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let appends = [
            Self.entry("binary", bytes: everyByte),
            Self.entry("empty", bytes: []),
            Self.entry("large", stream: "user 1", bytes: large),
            Self.entry("id with spaces 7 3 🙂", stream: "clé:ü 🙂 2 x", at: -5),
            Self.entry("", stream: "", at: .max),
            Self.entry("3", stream: "otid:2000000123"),
        ]
        for append in appends {
            guard case .appended = try store.appendToLog(Self.log, append) else {
                Issue.record("\(append.id) was not appended")
                return
            }
        }
        let read = try store.readLog(Self.log, after: 0, limit: 100)
        #expect(read.count == appends.count)
        for (append, entry) in zip(appends, read) {
            #expect(entry.id == append.id)
            #expect(entry.stream == append.stream)
            #expect(entry.recordedAt == append.recordedAt)
            #expect(entry.bytes == append.bytes, "bytes of \(append.id)")
            #expect(entry.streamVersion == (append.stream == nil ? 0 : 1))
        }
        #expect(try store.logSequence(Self.log, id: "id with spaces 7 3 🙂") == 4)
        #expect(try store.logSequence(Self.log, id: "") == 5)
        #expect(try store.logStreamVersion(Self.log, stream: "clé:ü 🙂 2 x") == 1)
        #expect(try store.logStreamVersion(Self.log, stream: "") == 1)
        // The far-future entry stops trimming; the one recorded at -5 goes.
        #expect(try store.trimLog(Self.log, recordedBefore: 2_000, limit: 100) == 4)
        #expect(try store.logSequence(Self.log, id: "id with spaces 7 3 🙂") == nil)
        #expect(try store.logBounds(Self.log) == LogBounds(first: 5, last: 6))
    }
}

extension KeyValueStoreConformanceTests {
    /// A seeded run of appends (new ids, known ids, stale and current versions), reads and
    /// trims: every answer of the store equals MemoryStore's, the reference model, step by step.
    @Test(arguments: StoreBackend.all)
    func aRandomRunAnswersAsTheModelDoes(backend: StoreBackend) throws {
        let store = try backend.makeStore()
        let model = MemoryStore()
        var random = SeededGenerator(seed: 0x1_5EED)
        var clock: Int64 = 0
        for step in 0..<400 {
            clock += Int64(random.next(upperBound: UInt64(3)))
            let choice = random.next(upperBound: UInt64(10))
            let stream: String? = random.next(upperBound: UInt64(4)) == 0 ? nil : "user-\(random.next(upperBound: UInt64(4)))"
            switch choice {
            case 0..<6:
                // Ids repeat now and then; the version is right most of the time, stale sometimes.
                let id = "e-\(random.next(upperBound: UInt64(300)))"
                let current = try stream.map { try model.logStreamVersion(Self.log, stream: $0) } ?? 0
                let expected = random.next(upperBound: UInt64(5)) == 0 ? current - 1 : current
                let entry = Self.entry(id, stream: stream, expected: expected, at: clock, bytes: Array("\(step)".utf8))
                #expect(try store.appendToLog(Self.log, entry) == model.appendToLog(Self.log, entry), "step \(step)")
            case 6..<8:
                let after = Int64(random.next(upperBound: UInt64(250))) - 5
                let limit = Int(random.next(upperBound: UInt64(40)))
                #expect(try store.readLog(Self.log, after: after, limit: limit) == model.readLog(Self.log, after: after, limit: limit),
                        "step \(step)")
            case 8:
                let before = clock - Int64(random.next(upperBound: UInt64(100)))
                let limit = Int(random.next(upperBound: UInt64(20)))
                #expect(try store.trimLog(Self.log, recordedBefore: before, limit: limit)
                        == model.trimLog(Self.log, recordedBefore: before, limit: limit), "step \(step)")
            default:
                let id = "e-\(random.next(upperBound: UInt64(300)))"
                #expect(try store.logSequence(Self.log, id: id) == model.logSequence(Self.log, id: id), "step \(step)")
                if let stream {
                    #expect(try store.logStreamVersion(Self.log, stream: stream) == model.logStreamVersion(Self.log, stream: stream))
                }
            }
            #expect(try store.logBounds(Self.log) == model.logBounds(Self.log), "step \(step)")
        }
        #expect(try store.readLog(Self.log, after: 0, limit: 1_000) == model.readLog(Self.log, after: 0, limit: 1_000))
        // The run did what it is for: many appends, and trims that took entries away.
        let bounds = try model.logBounds(Self.log)
        #expect(bounds.last > 100 && (bounds.first ?? .max) > 1, "\(bounds)")
    }
}
