import FoundationEssentials
import StorekeeperCore

/// Where a walk of the SQLite store stands (`StoreContents.contents`): the table it is in and
/// the last row it gave out, by that table's own order (rowid for values and jobs, the
/// primary key for the others), so every page is one range read. Kept by the caller as JSON.
struct SQLiteWalk: Codable, Equatable {
    enum Phase: Int, Codable, Comparable {
        case values, members, jobs, logs, streams, entries, done
        static func < (a: Phase, b: Phase) -> Bool { a.rawValue < b.rawValue }
    }

    var phase: Phase = .values
    /// The last rowid given out (values, jobs).
    var rowid: Int64 = 0
    /// The last key, log or (log, stream) given out.
    var name = ""
    var member = ""
    /// The last sequence given out (entries).
    var sequence: Int64 = 0

    /// Entries of one log per item, members of one set per item: bounded items.
    static let chunk = 100

    init() {}

    init(_ cursor: String?) throws(StoreError) {
        guard let cursor else { self.init(); return }
        guard let walk = try? JSONDecoder().decode(SQLiteWalk.self, from: Data(cursor.utf8)) else {
            throw StoreError(.failed, "the copy's cursor was not made by the SQLite store")
        }
        self = walk
    }

    var encoded: String? {
        guard phase != .done, let bytes = try? JSONEncoder().encode(self) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The start of the next table.
    mutating func advance() {
        self = SQLiteWalk(phase: Phase(rawValue: phase.rawValue + 1) ?? .done)
    }

    private init(phase: Phase) {
        self.phase = phase
    }
}
