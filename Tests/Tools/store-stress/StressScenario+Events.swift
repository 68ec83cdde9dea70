import FoundationEssentials
import StorekeeperCore

extension StressScenario {
    /// The `fill-events` scenario, for `make bench`: COUNT events of the vocabulary in the
    /// event log, round robin over CUSTOMERS customers, each at its customer's next version,
    /// as the relay appends them; recorded now.
    static func fillEvents(_ store: any KeyValueStore, count: Int, customers: Int) throws {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        var versions: [Int64] = Array(repeating: 0, count: max(customers, 1))
        for index in 0..<count {
            let customer = index % versions.count
            let id = "user-\(customer)"
            let version = try store.logStreamVersion(StoreKeys.eventLog, stream: id)
            versions[customer] = version + 1
            let event = Event(id: "bench-\(now)-\(index)", type: EventType.renewal.rawValue, occurredAt: now, recordedAt: now,
                              app: "com.example.app", environment: "Production", customerId: id, userId: id,
                              productId: "com.example.pro.monthly", transactionId: String(2_000_000_000 + index),
                              originalTransactionId: String(1_000_000_000 + customer), source: "notification",
                              customer: .object(["customerId": .string(id), "version": .number(Double(version + 1))]))
            _ = try store.appendToLog(StoreKeys.eventLog, LogAppend(id: event.id, stream: id, expectedStreamVersion: version,
                                                                    recordedAt: now, bytes: try event.encoded()))
        }
    }
}
