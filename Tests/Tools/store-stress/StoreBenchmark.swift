import FoundationEssentials
import StorekeeperCore

/// Operations per second of one process against one store, each operation timed on its own
/// over `operations` calls. Figures, not a test: `make bench` prints them.
struct StoreBenchmark {
    let store: any KeyValueStore
    let operations: Int
    /// Opens the same store again: `open` is what every request process pays first.
    let reopen: () throws -> any KeyValueStore

    func run() throws {
        let value = Array(repeating: UInt8(ascii: "v"), count: 256)
        try measure("set-if-absent (new key)") { index in
            _ = try store.setIfAbsent("bench:key:\(index)", value, expiresIn: .seconds(3_600))
        }
        try measure("set-if-absent (taken key)") { _ in
            _ = try store.setIfAbsent("bench:key:0", value, expiresIn: .seconds(3_600))
        }
        try measure("get") { index in
            _ = try store.get("bench:key:\(index)")
        }
        try measure("get + compareAndSet") { _ in
            guard try StressScenario.increment("bench:counter", in: store) else {
                throw StoreError(.failed, "a compareAndSet conflict with no other writer")
            }
        }
        try measure("enqueue") { index in
            try store.enqueue(QueuedJob(id: "bench-\(index)", payload: value), on: "bench:queue")
        }
        var claimed: [ClaimedJob] = []
        claimed.reserveCapacity(operations)
        try measure("claim") { _ in
            guard let job = try store.claim(from: "bench:queue", lease: .seconds(600)) else {
                throw StoreError(.failed, "the benchmark queue ran dry")
            }
            claimed.append(job)
        }
        try measure("acknowledge") { index in
            _ = try store.acknowledge(claimed[index])
        }
        // The event log: what the relay pays per event (a customer's version read, then the
        // append at it, ten customers taking turns), and a list-events page of 100.
        let event = Array(repeating: UInt8(ascii: "e"), count: 1_024)
        try measure("log append (version read + append)") { index in
            let stream = "bench-customer-\(index % 10)"
            let version = try store.logStreamVersion("{bench}", stream: stream)
            guard case .appended = try store.appendToLog("{bench}", LogAppend(
                id: "bench-event-\(index)", stream: stream, expectedStreamVersion: version, recordedAt: 0, bytes: event)) else {
                throw StoreError(.failed, "an append refused with no other writer")
            }
        }
        try measure("log read (100 after a sequence)") { index in
            _ = try store.readLog("{bench}", after: Int64(index % max(operations - 100, 1)), limit: 100)
        }
        // In this process, so without exec and dynamic loading; `spawn-timer -- store-stress
        // open STORE` gives the whole-process figure.
        try measure("open existing store, then close") { _ in
            _ = try reopen()
        }
    }

    private func measure(_ name: String, _ body: (Int) throws -> Void) throws {
        let clock = ContinuousClock()
        let elapsed = try clock.measure {
            for index in 0..<operations { try body(index) }
        }
        let (seconds, attoseconds) = elapsed.components
        let total = Double(seconds) + Double(attoseconds) / 1e18
        let perSecond = total > 0 ? Double(operations) / total : 0
        let each = operations > 0 ? total * 1e6 / Double(operations) : 0
        print("{\"operation\": \"\(name)\", \"count\": \(operations), \"per_second\": \(Int(perSecond)), \"microseconds_each\": \(rounded(each))}")
    }

    private func rounded(_ value: Double) -> Double { (value * 10).rounded() / 10 }
}
