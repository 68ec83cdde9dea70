import Foundation
import StorekeeperCore
import Testing
import TestSupport

/// ingest-transaction's events reach the log once its input is answered: a batch of one
/// user's purchases is one INITIAL_PURCHASE each, in order, the user's versions 1, 2, 3; the
/// same batch again records nothing.
@Suite("ingest-transaction: events in the log when the input is answered")
struct IngestTransactionEventsTests {
    @Test(arguments: Backend.allCases)
    func aBatchIsOneEventPerPurchaseInOrder(_ backend: Backend) throws {
        let store = try TestStore(backend)
        var environment = IngestTransactionBatchTests.environment
        environment["STORE_URL"] = store.url
        let batch = try IngestTransactionBatchTests.batch(3)
        for _ in 0..<2 {
            let result = try FunctionBinary(name: "ingest-transaction").run(stdin: batch, environment: environment)
            #expect(result.exitCode == 0, "\(result.stderrText)")
        }
        let events = try EventLog(store: store.open()).events(after: 0, limit: 100)
        #expect(events.map(\.type) == ["INITIAL_PURCHASE", "INITIAL_PURCHASE", "INITIAL_PURCHASE"])
        #expect(events.map(\.originalTransactionId) == ["3000000000", "3000000001", "3000000002"])
        #expect(events.map(\.customerVersion) == [1, 2, 3])
        #expect(events.allSatisfy { $0.userId == "u-batch" && $0.source == "ingest" && $0.recordedAt == 1_780_272_000_000 })
        #expect(try store.open().setMembers(StoreKeys.eventOutboxes).isEmpty)
    }
}
