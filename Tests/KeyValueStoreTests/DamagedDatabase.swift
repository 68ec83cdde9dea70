import Foundation
import SQLiteStore

/// A real SQLite database with real damage: written by the store, folded into one file by a
/// second implementation (python3's sqlite3: checkpoint, leave WAL mode, close), then every
/// page after the first overwritten. The first page (header and schema) is intact, so the
/// file opens, and the first read of a table fails with SQLITE_CORRUPT.
enum DamagedDatabase {
    static func make(at path: String) throws {
        do {
            let store = try SQLiteStore(path: path)
            for index in 0..<64 { try store.set("filler-\(index)", [UInt8](repeating: 7, count: 2_000), expiresIn: nil) }
        }
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", "-c",
                            "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('PRAGMA journal_mode = DELETE'); c.close()", path]
        try python.run()
        python.waitUntilExit()
        guard python.terminationStatus == 0 else { throw CocoaError(.fileWriteUnknown) }
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        let size = try handle.seekToEnd()
        // 4096: the page size SQLite chose for a new file on this system.
        guard size > 4_096 else { throw CocoaError(.fileReadCorruptFile) }
        try handle.seek(toOffset: 4_096)
        try handle.write(contentsOf: Data(repeating: 0xA5, count: Int(size) - 4_096))
    }
}
