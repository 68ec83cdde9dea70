import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import StorekeeperCore

/// What one `store-stress` process does against a store. Each scenario prints its outcome on
/// stdout, so a test that runs several processes at once can add up what each did.
enum StressScenario {
    static let usage = """
        usage: store-stress SCENARIO STORE [ARGS]
          open STORE                     open the store and exit (the per-request cost)
          set-if-absent STORE KEY COUNT  COUNT setIfAbsent calls on KEY; prints how many won
          cas-increment STORE KEY N      adds 1 to the decimal counter at KEY N times with
                                         compareAndSet retries; prints N and the conflicts
          set-if-absent-and-enqueue STORE KEY QUEUE COUNT
                                         COUNT setIfAbsentAndEnqueue calls (a job id of its
                                         own each time); prints how many won
          enqueue STORE QUEUE COUNT      enqueues job-0 ... job-(COUNT-1)
          claim-all STORE QUEUE          claims and acknowledges until nothing is ready;
                                         prints each id it acknowledged, one a line
          append-log STORE LOG COUNT STREAMS
                                         COUNT appends of entries of its own, spread over
                                         streams s-0 ... s-(STREAMS-1) (read the version,
                                         append, again while the stream moved), every 4th
                                         also appending shared-<n>; prints one line each:
                                         appended ID SEQUENCE STREAM VERSION | duplicate ID SEQUENCE
          fill-events STORE COUNT CUSTOMERS
                                         COUNT events in the event log, over CUSTOMERS customers
          fill-customer-events STORE COUNT CUSTOMERS
                                         COUNT events over CUSTOMERS customers, each with a customer
                                         state as the relay attaches it (for the metrics)
          metrics-catch-up STORE         the metrics aggregator counts the whole log; prints events, ms
          relay STORE                    moves every event still in an outbox into the event log
                                         (EventRelay.relayPending); prints how many it appended
          bench STORE N                  operations per second, one JSON line per operation
        STORE is sqlite:<path> or redis://host:port/db. STORE_STRESS_START_AT (milliseconds since 1970) makes the
        process wait until then before opening the store, so racing processes start together.
        """

    struct UsageError: Error {}

    static func run(_ arguments: [String]) throws -> Void {
        guard arguments.count >= 2 else { throw UsageError() }
        let scenario = arguments[0]
        let locator = arguments[1]
        let rest = Array(arguments.dropFirst(2))
        switch (scenario, rest.count) {
        case ("open", 0):
            _ = try StoreOpener.open(locator)
        case ("set-if-absent", 2):
            let count = try number(rest[1])
            let store = try StoreOpener.open(locator)
            var won = 0
            let value = Array("won by \(getpid())".utf8)
            for _ in 0..<count where try store.setIfAbsent(rest[0], value, expiresIn: nil) {
                won += 1
            }
            print(won)
        case ("cas-increment", 2):
            let increments = try number(rest[1])
            let store = try StoreOpener.open(locator)
            var conflicts = 0
            for _ in 0..<increments {
                while try !increment(rest[0], in: store) { conflicts += 1 }
            }
            print("\(increments) \(conflicts)")
        case ("set-if-absent-and-enqueue", 3):
            let count = try number(rest[2])
            let store = try StoreOpener.open(locator)
            var won = 0
            let value = Array("won by \(getpid())".utf8)
            for index in 0..<count {
                let job = QueuedJob(id: "job-\(getpid())-\(index)", payload: value)
                if try store.setIfAbsentAndEnqueue(rest[0], value, expiresIn: nil, job: job, on: rest[1]) { won += 1 }
            }
            print(won)
        case ("enqueue", 2):
            let count = try number(rest[1])
            let store = try StoreOpener.open(locator)
            for index in 0..<count {
                try store.enqueue(QueuedJob(id: "job-\(index)", payload: Array("\(index)".utf8)), on: rest[0])
            }
        case ("claim-all", 1):
            let store = try StoreOpener.open(locator)
            // A lease far longer than the run: a redelivery here would be a bug, not a timeout.
            while let claimed = try store.claim(from: rest[0], lease: .seconds(120)) {
                guard try store.acknowledge(claimed) else {
                    throw StoreError(.failed, "lost the lease on \(claimed.job.id)")
                }
                print(claimed.job.id)
            }
        case ("append-log", 3):
            try appendToLog(StoreOpener.open(locator), log: rest[0], count: number(rest[1]), streams: number(rest[2]))
        case ("fill-events", 2):
            try fillEvents(StoreOpener.open(locator), count: number(rest[0]), customers: number(rest[1]))
        case ("fill-customer-events", 2):
            try fillCustomerEvents(StoreOpener.open(locator), count: number(rest[0]), customers: number(rest[1]))
        case ("metrics-catch-up", 0):
            try metricsCatchUp(StoreOpener.open(locator))
        case ("relay", 0):
            let catalog = Catalog(apps: [], entitlements: [:], products: [:], productsImplied: true)
            print(try EventRelay(store: StoreOpener.open(locator), catalog: catalog).relayPending(now: 1_780_272_000_000))
        case ("bench", 1):
            try StoreBenchmark(store: StoreOpener.open(locator), operations: number(rest[0]),
                               reopen: { try StoreOpener.open(locator) }).run()
        default:
            throw UsageError()
        }
    }

    /// One read-modify-write; false when another process wrote in between.
    static func increment(_ key: String, in store: any KeyValueStore) throws -> Bool {
        let current = try store.get(key)
        var value = 0
        if let current {
            guard let parsed = Int(String(decoding: current.bytes, as: UTF8.self)) else {
                throw StoreError(.failed, "\(key) does not hold a decimal counter")
            }
            value = parsed
        }
        return try store.compareAndSet(key, Array(String(value + 1).utf8), expectedVersion: current?.version, expiresIn: nil)
    }

    static func number(_ text: String) throws -> Int {
        guard let value = Int(text), value >= 0 else { throw UsageError() }
        return value
    }
}
