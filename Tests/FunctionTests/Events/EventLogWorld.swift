import Foundation
import RedisStore
import SQLiteStore
import StorekeeperCore
import TestSupport

/// A store holding an event log, written in this process, read by the built binaries: one
/// SQLite file, or a fresh database on the test redis-server.
struct EventLogWorld {
    enum Backend: String, CaseIterable, CustomStringConvertible {
        case sqlite = "SQLite", redis = "Redis"
        var description: String { rawValue }

        /// SQLite always; Redis when redis-server runs here (or CI, where its absence fails).
        static var available: [Backend] {
            RedisTestServer.shouldRun ? [.sqlite, .redis] : [.sqlite]
        }
    }

    static let now: Int64 = 1_764_590_400_000
    static let day: Int64 = 86_400_000

    let locator: String
    let store: any KeyValueStore

    init(_ backend: Backend) throws {
        switch backend {
        case .sqlite:
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("events-\(UUID().uuidString).db").path
            locator = "sqlite:" + path
            store = try SQLiteStore(path: path)
        case .redis:
            locator = try RedisTestServer.freshDatabase()
            store = try RedisStore(url: locator)
        }
    }

    var environment: [String: String] { ["STORE_URL": locator] }

    /// An event as the relay would append it: a customer's carries its version.
    static func event(_ number: Int, type: EventType, userId: String?, environment: String = "Sandbox",
                      recordedAt: Int64 = now) -> Event {
        Event(id: "evt-\(number)", type: type.rawValue, occurredAt: recordedAt - 1_000, recordedAt: recordedAt,
              app: "com.example.storekeeper", environment: environment, customerId: userId ?? "otid:\(2_000_000 + number)",
              userId: userId, productId: "com.example.pro.monthly", transactionId: String(3_000_000 + number),
              originalTransactionId: String(2_000_000 + number), source: "notification")
    }

    /// Appends each event at its customer's current version, as `EventLog.append` does.
    @discardableResult
    func append(_ events: [Event]) throws -> [Event] {
        var appended: [Event] = []
        for var event in events {
            guard let stream = event.customerId else { throw StoreError(.failed, "\(event.id) has no customer") }
            let version = try store.logStreamVersion(StoreKeys.eventLog, stream: stream)
            event.customer = .object(["userId": event.userId.map(JSONValue.string) ?? .null, "version": .number(Double(version + 1))])
            let outcome = try store.appendToLog(StoreKeys.eventLog, LogAppend(
                id: event.id, stream: stream, expectedStreamVersion: version, recordedAt: event.recordedAt, bytes: try event.encoded()))
            guard case .appended(let sequence, _) = outcome else { throw StoreError(.failed, "\(event.id): \(outcome)") }
            event.sequence = sequence
            appended.append(event)
        }
        return appended
    }
}
