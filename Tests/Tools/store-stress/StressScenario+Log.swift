import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import StorekeeperCore

extension StressScenario {
    /// The `append-log` scenario: what a relay does per customer (read the stream's version,
    /// append at it, read again when another writer moved it), racing other processes.
    static func appendToLog(_ store: any KeyValueStore, log: String, count: Int, streams: Int) throws {
        guard streams > 0 else { throw UsageError() }
        let process = getpid()
        for index in 0..<count {
            let stream = "s-\(index % streams)"
            try appendAtCurrentVersion(store, log: log, id: "p\(process)-\(index)", stream: stream)
            if index % 4 == 0 {
                // The same id from every process: one of them appends it.
                try appendAtCurrentVersion(store, log: log, id: "shared-\(index)", stream: stream)
            }
        }
    }

    private static func appendAtCurrentVersion(_ store: any KeyValueStore, log: String, id: String, stream: String) throws {
        while true {
            let expected = try store.logStreamVersion(log, stream: stream)
            let entry = LogAppend(id: id, stream: stream, expectedStreamVersion: expected,
                                  recordedAt: 1_000, bytes: Array("\(id) at \(stream) v\(expected + 1)".utf8))
            switch try store.appendToLog(log, entry) {
            case .appended(let sequence, let version):
                print("appended \(id) \(sequence) \(stream) \(version)")
                return
            case .duplicate(let sequence):
                print("duplicate \(id) \(sequence)")
                return
            case .streamMoved:
                continue
            }
        }
    }
}
