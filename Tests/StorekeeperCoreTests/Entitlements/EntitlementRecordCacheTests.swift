import FoundationEssentials
import StorekeeperCore
import Testing

/// `EntitlementRecord(storeBytes:)` takes a kept record for bytes it has seen: the answer must
/// be what decoding those bytes gives, whatever else passed through in between.
@Suite("Entitlement records: the decoded-record cache answers only for the very same bytes")
struct EntitlementRecordCacheTests {
    /// Twelve different records (more than the cache keeps), each one renewal further on.
    static func records() throws -> [EntitlementRecord] {
        var simulator = LifecycleSimulator(originalTransactionId: "77")
        simulator.subscribe()
        for _ in 0..<11 { simulator.renew() }
        var record: EntitlementRecord?
        var records: [EntitlementRecord] = []
        for event in simulator.events {
            record = try EntitlementEngine.apply(event, to: record).record
            records.append(try #require(record))
        }
        return records
    }

    @Test func eachBytesDecodeToTheirOwnRecordBeforeAndAfterTheCacheTurnsOver() throws {
        let records = try Self.records()
        let bytes = try records.map { try $0.storeBytes() }
        #expect(Set(bytes).count == records.count, "the records differ")
        // Read back newest first (kept), then oldest first (turned over, decoded again).
        for (record, stored) in zip(records, bytes).reversed() {
            #expect(try EntitlementRecord(storeBytes: stored) == record)
        }
        for (record, stored) in zip(records, bytes) {
            #expect(try EntitlementRecord(storeBytes: stored) == record)
        }
        // Bytes that differ by one field are another record, never the kept one.
        var changed = records[0]
        changed.customerId = "someone-else"
        #expect(try EntitlementRecord(storeBytes: changed.storeBytes()).customerId == "someone-else")
        #expect(try EntitlementRecord(storeBytes: bytes[0]).customerId == records[0].customerId)
    }
}
