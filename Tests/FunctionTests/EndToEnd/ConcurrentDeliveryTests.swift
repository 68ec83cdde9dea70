import Foundation
import StorekeeperCore
import Testing
import TestSupport

extension EndToEnd {
    /// Apple retries while the first attempt is still running, and several function processes
    /// answer at once (CGI processes, or the FastCGI children sharing one socket): deduplication
    /// must hold across processes, not just in one.
    @Suite("Through lighttpd and nginx: one notification delivered 50 times at once")
    struct ConcurrentDeliveryTests {
        static let deliveries = 50

        @Test("50 concurrent POSTs: one accepted, 49 duplicates, one job, applied once", arguments: Backend.allCases, Gateway.Kind.allCases)
        func fiftyAtOnce(_ backend: Backend, _ kind: Gateway.Kind) throws {
            let deployment = try Deployment(backend, gateway: kind)
            var story = LifecycleSimulator(originalTransactionId: "3000000004", group: 4, start: E2E.nowMilliseconds - 60_000)
            story.subscribe()
            let notification = try #require(story.notifications.first)
            let payload = try #require(try Binaries.sign([notification]).first)

            let gateway = deployment.gateway
            let results = concurrently(Self.deliveries) { _ in try gateway.deliver(payload) }
            var receipts: [String: Int] = [:]
            for result in results {
                switch result {
                case .success(let answer):
                    #expect(answer.status == 200, "\(answer)")
                    receipts[answer.receipt ?? answer.text, default: 0] += 1
                case .failure(let error):
                    Issue.record("a delivery got no answer: \(error)")
                }
            }
            #expect(receipts == ["accepted": 1, "duplicate": Self.deliveries - 1], "\(receipts)")
            let lines = gateway.requestLines(of: "receive-notification")
            #expect(lines.count == Self.deliveries && lines.allSatisfy { $0["status"] as? Int == 200 && $0["exit"] as? Int == 0 },
                    "\(lines.count) request lines; not 200: \(lines.filter { $0["status"] as? Int != 200 })")
            #expect(try deployment.store.pendingJobs() == 1)

            let report = try deployment.work()
            var once = NotificationProcessor.Report()
            once.applied = 1
            once.events = 1
            #expect(report == once, "\(report)")
            #expect(try deployment.store.pendingJobs() == 0)
            #expect(try deployment.store.deadLetters().isEmpty)
            let record = try #require(try deployment.store.record(story.originalTransactionId))
            #expect(record.lastEvent.id == notification.uuid)
            #expect(record == (try LifecycleSimulator.inOrderRecord([notification])))
            let entitlement = try deployment.entitlement(appAccountToken: story.appAccountToken)
            #expect(entitlement["status"] as? String == "active" && entitlement["active"] as? Bool == true, "\(entitlement)")
            #expect(entitlement.field("lastEvent", "id") as? String == notification.uuid, "\(entitlement)")
        }
    }
}
