import Foundation
@testable import StorekeeperCore
import Testing
import TestSupport

/// What the webhook suites share: a store with events in its log, the receiver, and
/// deliver-events / replay-events run as built binaries against both.
struct WebhookTestbed {
    /// Standard Webhooks' own example secret, and two more for rotation.
    static let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    static let newSecret = "whsec_" + Data((0..<32).map { UInt8($0 * 7 % 256) }).base64EncodedString()
    static let strangerSecret = "whsec_" + Data((0..<32).map { UInt8(255 - $0) }).base64EncodedString()
    /// 2026-12-01T12:00:00Z, the clock every case starts at (STOREKEEPER_NOW).
    static let start: Int64 = 1_764_590_400

    let store: TestStore
    let receiver: WebhookReceiver
    var environment: [String: String]

    init(_ backend: Backend = .sqlite, secrets: [String: String] = ["/hooks": Self.secret]) throws {
        store = try TestStore(backend)
        receiver = try WebhookReceiver(secrets: secrets)
        environment = [
            "STORE_URL": store.url,
            "STOREKEEPER_WEBHOOK_URL": receiver.url("/hooks"),
            "STOREKEEPER_WEBHOOK_SECRET": Self.secret,
            "STOREKEEPER_WEBHOOK_TIMEOUT_SECONDS": "1",
            "PATH": "/usr/local/bin:/usr/bin:/bin",
        ]
    }

    /// Pins the function's clock and the receiver's to `seconds` (epoch).
    mutating func setNow(_ seconds: Int64?) throws {
        environment["STOREKEEPER_NOW"] = seconds.map(String.init)
        try receiver.setNow(seconds)
    }

    /// Appends events to the log as the relay does: each customer's version going up by one.
    /// `specs`: (customer, type, environment) in log order; answers the events with their sequence.
    @discardableResult
    func record(_ specs: [(customer: String?, type: EventType, environment: String)], recordedAt: Int64 = Self.start * 1000,
                prefix: String = "evt") throws -> [Event] {
        let log = EventLog(store: try store.open())
        var events: [Event] = []
        for (index, spec) in specs.enumerated() {
            var event = Event(id: "\(prefix)-\(index + 1)", type: spec.type.rawValue, occurredAt: recordedAt - 1000,
                              recordedAt: recordedAt, app: "com.example.app", environment: spec.environment,
                              customerId: spec.customer, userId: spec.customer, productId: "com.example.pro.monthly",
                              source: "notification")
            var expected: Int64 = 0
            if let customer = spec.customer {
                expected = try log.version(ofCustomer: customer)
                event.customer = .object(["customerId": .string(customer), "version": .number(Double(expected + 1))])
            }
            guard case .appended(let sequence, _) = try log.append(event, expectedVersion: expected) else {
                throw SpawnedProcess.Failure("event \(event.id) was not appended")
            }
            event.sequence = sequence
            events.append(event)
        }
        return events
    }

    struct Run {
        var exitCode: Int32
        var answer: [String: Any]
        var stderr: String
        var endpoints: [[String: Any]] { answer["endpoints"] as? [[String: Any]] ?? [] }
    }

    func run(_ function: String = "deliver-events", _ request: String = "{}", extra: [String: String] = [:]) throws -> Run {
        let result = try FunctionBinary(name: function).run(stdin: Data(request.utf8), environment: environment.merging(extra) { $1 })
        let answer = (try? JSONSerialization.jsonObject(with: result.stdout)) as? [String: Any] ?? [:]
        return Run(exitCode: result.exitCode, answer: answer, stderr: result.stderrText)
    }

    /// deliver-events {"status": true}'s first endpoint.
    func status() throws -> [String: Any] {
        try run("deliver-events", #"{"status": true}"#).endpoints.first ?? [:]
    }

    /// For each customer, the sequences in the order they first arrived at `path`.
    func firstArrivals(_ path: String = "/hooks") -> [String: [Int64]] {
        var seen: Set<String> = []
        var order: [String: [Int64]] = [:]
        for delivery in receiver.deliveries(path) where delivery.answer == "200" && seen.insert(delivery.id).inserted {
            order[delivery.customerId ?? "none", default: []].append(delivery.sequence ?? -1)
        }
        return order
    }
}
