import Foundation
import StorekeeperCore
import Testing
import TestSupport

/// From Apple's signed notifications to the app's backend: receive-notification, the worker
/// (which records each change's event), then deliver-events, all as built binaries.
@Suite("deliver-events end to end: a subscription's lifecycle from Apple's notifications to a verified webhook each", .serialized,
       .enabled(if: E2E.shouldRun, "redis-server or lighttpd is not installed (see EndToEnd)"))
struct DeliverEventsLifecycleTests {
    @Test("subscribe, renew, auto-renew off and on, refund: one event each, in order, versions 1, 2, 3, ...", arguments: Backend.allCases)
    func lifecycle(_ backend: Backend) throws {
        let bed = try WebhookTestbed(backend)
        var environment = E2E.environment(storeURL: bed.store.url, adminToken: "unused")
        var story = LifecycleSimulator(originalTransactionId: "5100000001", group: 510)
        story.subscribe()
        story.renew()
        story.setAutoRenew(false)
        story.setAutoRenew(true)
        story.refund()
        // One at a time, as Apple sends them over the months (the worker takes refunds first).
        for signed in try Binaries.sign(story.notifications) {
            let received = try Binaries.receive([signed], environment: environment)
            #expect(received.exitCode == 0, "\(received.answers)")
            let worker = try Binaries.process(environment: environment)
            #expect(worker.report?.applied == 1, "\(worker)")
        }

        for (name, value) in bed.environment where name.hasPrefix("STOREKEEPER_WEBHOOK") { environment[name] = value }
        let delivered = try FunctionBinary(name: "deliver-events").run(stdin: Data("{}".utf8), environment: environment)
        #expect(delivered.exitCode == 0, "\(delivered.stdoutText) \(delivered.stderrText.suffix(2000))")
        let deliveries = bed.receiver.deliveries()
        #expect(deliveries.allSatisfy { $0.verified && $0.answer == "200" }, "\(deliveries)")
        #expect(deliveries.map(\.type) == ["INITIAL_PURCHASE", "RENEWAL", "CANCELLATION", "UNCANCELLATION", "REFUND"],
                "\(deliveries.map(\.type))")
        #expect(Set(deliveries.map(\.customerId)).count == 1, "\(deliveries.map(\.customerId))")
        #expect(deliveries.map(\.sequence) == (1...Int64(deliveries.count)).map { Optional($0) })
        #expect(deliveries.map(\.version) == [1, 2, 3, 4, 5], "\(deliveries.map(\.version))")
    }
}
