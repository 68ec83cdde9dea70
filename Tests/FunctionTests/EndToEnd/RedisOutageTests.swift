import Foundation
import StorekeeperCore
import Testing
import TestSupport

extension EndToEnd {
    /// The store goes away in the middle of a run. Apple must hear 503 (so it retries) and
    /// nothing may be half-stored; once the store is back, Apple's retries are accepted once.
    @Suite("Through lighttpd: Redis crashes mid-run and comes back")
    struct RedisOutageTests {
        @Test("Redis killed: every POST answers 503 (exit 75); restarted: Apple's re-sends are accepted once and applied")
        func redisCrashesAndComesBack() throws {
            // Persistence on, as DESIGN.md asks of a production Redis: what was accepted before
            // the crash survives it (fsync on every write, so a SIGKILL loses nothing).
            let deployment = try Deployment(.redis, redisArguments: ["--appendonly", "yes", "--appendfsync", "always"])
            let redis = try #require(deployment.store.redis)
            let story = WebServerLifecycleTests.demoStory(group: 5, originalTransactionId: "3000000005")
            let signed = try Binaries.sign(story.notifications)
            let (before, during) = (Array(signed.prefix(2)), Array(signed.dropFirst(2)))

            for payload in before {
                let answer = try deployment.gateway.deliver(payload)
                #expect(answer.status == 200 && answer.receipt == "accepted", "\(answer)")
            }
            #expect(try deployment.work().applied == 2)

            redis.kill()
            for payload in during {
                let answer = try deployment.gateway.deliver(payload)
                #expect(answer.status == 503 && answer.errorCode == "store_unavailable", "\(answer)")
            }
            let refused = deployment.gateway.requestLines(of: "receive-notification").suffix(during.count)
            #expect(refused.count == during.count
                    && refused.allSatisfy { $0["status"] as? Int == 503 && $0["exit"] as? Int == 75 }, "\(refused)")
            // The worker and the internal read path say "retry later" too.
            let worker = try Binaries.process(environment: deployment.environment)
            #expect(worker.exitCode == 75, "\(worker)")
            let read = try deployment.gateway.entitlements(appAccountToken: story.appAccountToken, bearer: deployment.adminToken)
            #expect(read.status == 503, "\(read)")

            try redis.restart()
            // Apple re-sends what it did not get a 200 for; a re-send of an accepted one is a duplicate.
            for payload in before {
                let answer = try deployment.gateway.deliver(payload)
                #expect(answer.status == 200 && answer.receipt == "duplicate", "kept through the crash: \(answer)")
            }
            for payload in during {
                let first = try deployment.gateway.deliver(payload)
                #expect(first.status == 200 && first.receipt == "accepted", "\(first)")
                let again = try deployment.gateway.deliver(payload)
                #expect(again.status == 200 && again.receipt == "duplicate", "\(again)")
            }
            #expect(try deployment.store.pendingJobs() == during.count)

            // Each applied once or found stale: the REFUND goes first (refunds jump the queue),
            // and it carries newer facts about the same period than the RESUBSCRIBE queued
            // before it, which then changes nothing.
            let report = try deployment.work()
            var expected = NotificationProcessor.Report()
            expected.applied = during.count - 1
            expected.stale = 1
            // One event: the REFUND, applied first, already carries the newest facts; what was
            // queued before it adds older ones, which change nothing a backend sees.
            expected.events = 1
            // A refund nobody asked Storekeeper about (no CONSUMPTION_REQUEST): counted, not recorded.
            expected.refundRequests.withoutRequest = 1
            #expect(report == expected, "\(report)")
            #expect(try deployment.store.pendingJobs() == 0)
            #expect(try deployment.store.deadLetters().isEmpty)
            for notification in story.notifications {
                #expect(try deployment.store.hasNotification(notification.uuid), "\(notification.uuid) lost")
            }
            #expect(try deployment.store.record(story.originalTransactionId) == LifecycleSimulator.inOrderRecord(story.notifications))
            let entitlement = try deployment.entitlement(appAccountToken: story.appAccountToken)
            #expect(entitlement["status"] as? String == "refunded" && entitlement["active"] as? Bool == false, "\(entitlement)")
            #expect(entitlement.field("lastEvent", "id") as? String == story.notifications.last?.uuid, "\(entitlement)")
        }
    }
}
