import Foundation
import StorekeeperCore
import Testing
import TestSupport

extension EndToEnd {
    /// The worker dies (SIGKILL: no handler, no cleanup) at random moments while it works
    /// through a few hundred notifications: between claim and apply, between the record write
    /// and the acknowledgement, inside a store transaction. Leases bring the work back; then
    /// one uninterrupted run must leave every entitlement exactly as in-order delivery would.
    @Suite("process-notifications killed at random points: nothing lost, nothing applied twice")
    struct WorkerKillTests {
        static let subscriptions = 30
        static let notificationsEach = 10
        /// Short, so killed work comes back within the test (the default is 30 s).
        static let leaseSeconds = 1.0
        /// Kills to aim for; the loop also ends when the queue is empty, whichever comes first.
        static let targetKills = 30
        /// Kills that must land mid-work whatever the machine's speed. A kill is decided by
        /// progress (after at most 12 acknowledgements) and lands a few store round trips
        /// later, so each takes at most about 15 of the 300 jobs, and every worker is killed
        /// until fewer jobs are ready than one kill takes: about 17 kills at the very least on
        /// any machine, 20-30 as a rule. 10 leaves room and still proves the point.
        static let leastMidWorkKills = 10
        /// Worker runs before the loop gives up: far more than the queue can take (each run
        /// acknowledges work or waits out leases), so reaching it means the worker is stuck.
        static let maximumRuns = 1_000

        @Test("300 notifications for 30 subscriptions, up to 30 SIGKILLs of the worker, then one clean run",
              arguments: Backend.allCases)
        func killedWorker(_ backend: Backend) throws {
            let store = try TestStore(backend)
            var environment = E2E.environment(storeURL: store.url, adminToken: "unused")
            environment["PROCESS_LEASE_SECONDS"] = String(Self.leaseSeconds)
            var generator = SeededGenerator(seed: 0xC0FF_EE00 + UInt64(Backend.allCases.firstIndex(of: backend) ?? 0))

            // 30 lives of 10 notifications each, starting a day apart in 2026 (the fixture
            // leaf certificate is valid 2025-2030; chains are checked at signedDate).
            let stories = (0..<Self.subscriptions).map { index in
                var story = LifecycleSimulator(originalTransactionId: String(4_000_000_000 + index), group: 100 + index,
                                               start: 1_767_225_600_000 + Int64(index) * LifecycleSimulator.day)
                story.playRandomly(notifications: Self.notificationsEach, using: &generator)
                return story
            }
            let notifications = stories.flatMap(\.notifications)
            let signed = try Binaries.sign(notifications)
            // Apple does not keep order either: delivered shuffled, in one receive-notification batch.
            let delivery = Array(signed.indices).shuffled(using: &generator).map { signed[$0] }
            let received = try Binaries.receive(delivery, environment: environment)
            #expect(received.exitCode == 0 && received.answers == Array(repeating: "accepted", count: delivery.count),
                    "\(Set(received.answers))")
            #expect(try store.pendingJobs() == notifications.count)

            let kills = try Self.killRepeatedly(environment: environment, store: store, using: &generator)
            // Kills landed in the middle of the work (a kill of an idle worker proves nothing).
            // How many depends on the machine's speed; that enough do does not (see
            // leastMidWorkKills), so that is what is asserted.
            #expect(!kills.stuck, "\(kills)")
            #expect(kills.midWork >= Self.leastMidWorkKills, "\(kills)")

            // Whatever a killed worker held comes back once its lease ends; then one clean run
            // handles every job left, each exactly once: applied, or found duplicate (a killed
            // worker had applied it but not acknowledged it) or stale (newer facts are in).
            // A lease is a time by definition (the store compares its clock with the lease's
            // end), so waiting for the clock to pass the last lease is waiting for the condition.
            Self.waitUntil(kills.lastKill.addingTimeInterval(Self.leaseSeconds + 0.3))
            let left = try store.pendingJobs()
            let final = try Binaries.process(environment: environment)
            let report = try #require(final.report, "\(final)")
            #expect(final.exitCode == 0 && report.failed == 0 && report.deadLettered == 0 && report.remaining == 0, "\(final)")
            #expect(report.applied + report.duplicate + report.stale + report.ignored == left, "\(left) jobs left: \(report)")
            #expect(try store.pendingJobs() == 0)
            #expect(try store.deadLetters() == [])
            print("EndToEnd kill test (\(backend.testDescription)): \(notifications.count) notifications, \(kills), then \(report)")

            // Nothing lost: every notification is kept, and every entitlement is the one
            // in-order delivery gives (the same engine, in process, one notification at a time).
            for notification in notifications {
                #expect(try store.hasNotification(notification.uuid), "\(notification.uuid) lost")
            }
            for story in stories {
                let record = try store.record(story.originalTransactionId)
                let expected = try LifecycleSimulator.inOrderRecord(story.notifications)
                #expect(record == expected, "\(story.originalTransactionId): \(String(describing: record)) != \(String(describing: expected))")
            }
            // Nothing applied twice, nothing pending: Apple's retries of all 300 are duplicates
            // and queue nothing, and a worker run finds nothing to do.
            let again = try Binaries.receive(delivery, environment: environment)
            #expect(again.answers == Array(repeating: "duplicate", count: delivery.count), "\(Set(again.answers))")
            #expect(try store.pendingJobs() == 0)
            #expect(try Binaries.process(environment: environment).report == NotificationProcessor.Report())
        }

        struct Kills: CustomStringConvertible {
            var runs = 0
            /// Killed while still running.
            var killed = 0
            /// Killed after acknowledging at least one notification while work was still
            /// queued: the kill cut into the claim, application or acknowledgement of the next.
            var midWork = 0
            /// Ended on their own before the kill (nothing ready: the rest was leased).
            var finished = 0
            /// When the last kill landed (the last lease a killed worker may hold began before).
            var lastKill = Date()
            /// The loop gave up: the worker stopped making progress.
            var stuck = false
            var description: String {
                "\(runs) worker runs, \(killed) SIGKILLed (\(midWork) mid-work), \(finished) ended on their own\(stuck ? ", STUCK" : "")"
            }
        }

        /// Sleeps until `moment` has passed (at once when it has).
        static func waitUntil(_ moment: Date) {
            while Date() < moment { usleep(20_000) }
        }

        /// Starts the worker and SIGKILLs it at a random point, again and again, until
        /// `targetKills` kills have landed or the queue is empty.
        ///
        /// The point is chosen by progress, not by the clock, so it means the same on a fast
        /// machine and a slow or loaded one: the test waits until the worker has acknowledged a
        /// random 1 to 12 notifications, then reads the store a random 0 to 6 times more (each
        /// read a round trip to the store the worker is using, so about as long as one step of
        /// the worker's claim, apply, acknowledge), and kills it wherever it is. One kill in 13
        /// lands in the first 1-10 ms instead (start-up, the first claim); where that is does
        /// not matter to what is asserted.
        static func killRepeatedly(environment: [String: String], store: TestStore,
                                   using generator: inout SeededGenerator) throws -> Kills {
            let folder = try E2E.scratchFolder("worker")
            defer { try? FileManager.default.removeItem(at: folder) }
            let request = folder.appendingPathComponent("request.json")
            try Data("{}".utf8).write(to: request)
            let binary = FunctionBinary.binDirectory.appendingPathComponent("process-notifications").path
            let probe = try store.open()
            var kills = Kills()
            while kills.killed < targetKills {
                let before = try probe.pendingCount(in: StoreKeys.notificationQueue)
                guard before > 0 else { break }
                guard kills.runs < maximumRuns else {
                    kills.stuck = true
                    return kills
                }
                kills.runs += 1
                let output = folder.appendingPathComponent("run-\(kills.runs).out")
                let worker = try SpawnedProcess.spawn(
                    binary, [], environment: environment, directory: FunctionBinary.repositoryRoot.path,
                    stdin: request.path, stdout: output.path, stderr: folder.appendingPathComponent("worker.log").path)
                let acknowledgements = Int.random(in: 0...12, using: &generator)
                let extraReads = Int.random(in: 0...6, using: &generator)
                let startUp = UInt32.random(in: 1_000...10_000, using: &generator)
                do {
                    if acknowledgements == 0 {
                        usleep(startUp)
                    } else {
                        // Not a limit on speed: a worker that neither acknowledges nor ends
                        // for a minute is hung, and the test says so instead of hanging too.
                        let hung = Date().addingTimeInterval(60)
                        while worker.poll() == nil,
                              try probe.pendingCount(in: StoreKeys.notificationQueue) > before - acknowledgements {
                            guard Date() < hung else {
                                kills.stuck = true
                                worker.killAndWait()
                                return kills
                            }
                            usleep(200)
                        }
                        for _ in 0..<extraReads { _ = try probe.pendingCount(in: StoreKeys.notificationQueue) }
                    }
                } catch {
                    worker.killAndWait()
                    throw error
                }
                let ended = worker.killAndWait()
                switch ended {
                case .signaled(SIGKILL):
                    kills.killed += 1
                    kills.lastKill = Date()
                    let after = try probe.pendingCount(in: StoreKeys.notificationQueue)
                    if after < before && after > 0 { kills.midWork += 1 }
                case .exited(0):
                    kills.finished += 1
                    let text = (try? Data(contentsOf: output)) ?? Data()
                    let report = try JSONDecoder().decode(NotificationProcessor.Report.self, from: text)
                    #expect(report.failed == 0 && report.deadLettered == 0, "\(report)")
                    if report.remaining == 0 { return kills }
                    // Only leased work is left: it comes back when the killed workers' leases
                    // end. Poll for that rather than start a worker a millisecond.
                    usleep(100_000)
                default:
                    let log = (try? String(contentsOf: folder.appendingPathComponent("worker.log"), encoding: .utf8)) ?? ""
                    Issue.record("process-notifications ended with \(ended): \(log.suffix(2000))")
                    return kills
                }
            }
            return kills
        }
    }
}
