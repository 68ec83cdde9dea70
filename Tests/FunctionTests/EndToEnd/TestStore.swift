import Foundation
import RedisStore
import SQLiteStore
import StorekeeperCore
import Testing
import TestSupport

/// The two stores a deployment can use.
enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case redis

    var testDescription: String { self == .sqlite ? "SQLite file" : "Redis" }
}

/// A fresh store for one case: an SQLite file in a scratch folder, or a redis-server of its
/// own on a free port. The functions reach it through `url` (STORE_URL); the test looks
/// inside through `open()`, the same adapters the functions use.
final class TestStore: @unchecked Sendable {
    let backend: Backend
    let url: String
    let redis: RedisTestServer?
    private let folder: URL?

    init(_ backend: Backend, redisArguments: [String] = []) throws {
        self.backend = backend
        switch backend {
        case .sqlite:
            let folder = try E2E.scratchFolder("sqlite")
            self.folder = folder
            url = "sqlite:" + folder.appendingPathComponent("storekeeper.db").path
            redis = nil
        case .redis:
            try E2E.requireTools()
            let server = try RedisTestServer.start(arguments: redisArguments)
            redis = server
            url = server.url()
            folder = nil
        }
    }

    deinit {
        redis?.kill()
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }

    /// A new connection.
    func open() throws -> any KeyValueStore {
        switch backend {
        case .sqlite: return try SQLiteStore(path: String(url.dropFirst("sqlite:".count)))
        case .redis: return try RedisStore(url: url)
        }
    }

    /// Queued (ready or leased) notification jobs.
    func pendingJobs() throws -> Int {
        try open().pendingCount(in: StoreKeys.notificationQueue)
    }

    func deadLetters() throws -> [String] {
        try open().deadLetters(in: StoreKeys.notificationQueue)
    }

    func hasNotification(_ uuid: String) throws -> Bool {
        try open().get(StoreKeys.notification(uuid)) != nil
    }

    func record(_ originalTransactionId: String) throws -> EntitlementRecord? {
        try EntitlementRepository(store: open()).record(originalTransactionId)
    }
}
