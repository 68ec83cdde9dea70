import Foundation
@testable import SQLiteStore
import StorekeeperCore
import Testing

extension SQLiteStoreTests {
    /// A database of schema 2 (before the oldest job's age) gains the index on open, its jobs
    /// untouched, and the age is read from the index, not from a scan of the queue.
    @Test func aSchemaTwoDatabaseGainsThePendingAgeIndex() throws {
        let path = TestDirectory.newPath("v2.db")
        do {
            let store = try SQLiteStore(path: path)
            #expect(try store.enqueue(QueuedJob(id: "old", payload: [1]), on: "n"))
        }
        _ = try Self.shell(path, "DROP INDEX jobs_pending_age; PRAGMA user_version = 2;")
        #expect(try Self.userVersion(path) == 2)
        #expect(try Self.shell(path, "SELECT count(*) FROM sqlite_master WHERE name = 'jobs_pending_age';") == "0")
        let reopened = try SQLiteStore(path: path)
        #expect(try Self.userVersion(path) == 3)
        #expect(try Self.shell(path, "SELECT count(*) FROM sqlite_master WHERE name = 'jobs_pending_age';") == "1")
        #expect(try reopened.oldestPendingEnqueuedAt(in: "n") != nil)
        let plan = try Self.shell(path, "EXPLAIN QUERY PLAN " + SQLiteQuery.oldestPendingEnqueuedAt.rawValue.replacingOccurrences(of: "?1", with: "'n'"))
        #expect(plan.contains("jobs_pending_age"), "\(plan)")
    }
}
