import Foundation
import StorekeeperCore
import Testing
import TestSupport

/// One whole deployment for one case: a fresh store, a gateway (lighttpd with CGI by default,
/// or nginx with FastCGI) serving the functions in front of it, and the worker run by hand as cron would run it.
final class Deployment: @unchecked Sendable {
    let store: TestStore
    let gateway: Gateway
    let adminToken = "e2e-admin-" + UUID().uuidString
    let environment: [String: String]

    init(_ backend: Backend, redisArguments: [String] = [], gateway kind: Gateway.Kind = .lighttpdCGI) throws {
        store = try TestStore(backend, redisArguments: redisArguments)
        environment = E2E.environment(storeURL: store.url, adminToken: adminToken)
        gateway = try Gateway.start(environment: environment, kind: kind)
    }

    deinit {
        gateway.stop()
    }

    /// One run of `process-notifications`; a run that does not exit 0 is an error.
    func work() throws -> NotificationProcessor.Report {
        let run = try Binaries.process(environment: environment)
        guard run.exitCode == 0, let report = run.report else {
            throw Binaries.Failure("process-notifications: \(run)")
        }
        return report
    }

    /// GET /entitlements?appAccountToken=... with the admin token: the user's only entitlement.
    func entitlement(appAccountToken: String) throws -> [String: Any] {
        let answer = try gateway.entitlements(appAccountToken: appAccountToken, bearer: adminToken)
        guard answer.status == 200, let entitlements = answer.json["entitlements"] as? [[String: Any]],
              entitlements.count == 1, let only = entitlements.first else {
            throw Binaries.Failure("GET /entitlements: expected one entitlement, got \(answer)")
        }
        return only
    }
}

/// Runs `body` on `count` threads that start together (after all are created), so the calls
/// really overlap; the results come back in index order.
func concurrently<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) throws -> T) -> [Result<T, any Error>] {
    let box = ResultsBox<T>(count)
    let group = DispatchGroup()
    let gate = DispatchSemaphore(value: 0)
    for index in 0..<count {
        group.enter()
        let thread = Thread {
            gate.wait()
            let result = Result { try body(index) }
            box.lock.withLock { box.results[index] = result }
            group.leave()
        }
        thread.start()
    }
    for _ in 0..<count { gate.signal() }
    group.wait()
    return box.lock.withLock { box.results.map { $0 ?? .failure(Binaries.Failure("no result")) } }
}

private final class ResultsBox<T>: @unchecked Sendable {
    let lock = NSLock()
    var results: [Result<T, any Error>?]
    init(_ count: Int) { results = Array(repeating: nil, count: count) }
}

extension Dictionary where Key == String, Value == Any {
    /// A nested field, for short expectations: `entitlement.field("lastEvent", "id")`.
    func field(_ path: String...) -> Any? {
        var current: Any? = self
        for key in path { current = (current as? [String: Any])?[key] }
        return current
    }
}
