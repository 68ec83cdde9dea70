import Foundation
import StorekeeperCore
import StorekeeperTesting
import Testing
import TestSupport

extension MetricsBinaryTests {
    /// The oldest job's age is the store's (real) clock against the scrape's real time, even
    /// when the scrape's decisions are pinned (STOREKEEPER_NOW); 0 once the worker emptied the queue.
    @Test("storekeeper_queue_oldest_job_age_seconds: a notification waiting, then none", arguments: Backend.allCases)
    func oldestJobAge(_ backend: Backend) throws {
        let store = try TestStore(backend)
        var environment = E2E.environment(storeURL: store.url, adminToken: "unused")
        let spec = Self.stories()[0]
        environment["STOREKEEPER_NOW"] = String(spec.signedDate / 1000 + 1)
        let received = try Binaries.receive(try Binaries.sign([spec]), environment: environment)
        #expect(received.exitCode == 0, "\(received.answers)")
        Thread.sleep(forTimeInterval: 1.5)
        let waiting = try Self.scrape(environment, at: spec.signedDate / 1000 + 2).families
        #expect(waiting.first { $0.name == "storekeeper_queue_oldest_job_age_seconds" }?.type == "gauge")
        #expect(waiting.value("storekeeper_notification_queue_jobs") == 1)
        let age = try #require(waiting.value("storekeeper_queue_oldest_job_age_seconds"))
        #expect(age >= 1.5 && age < 120, "\(age)")

        #expect(try Binaries.process(environment: environment).report?.applied == 1)
        let empty = try Self.scrape(environment, at: spec.signedDate / 1000 + 3).families
        #expect(empty.value("storekeeper_notification_queue_jobs") == 0)
        #expect(empty.value("storekeeper_queue_oldest_job_age_seconds") == 0)
    }
}
