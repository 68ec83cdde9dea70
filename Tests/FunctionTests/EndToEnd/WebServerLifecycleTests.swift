import Foundation
import StorekeeperCore
import Testing
import TestSupport

extension EndToEnd {
    /// Apple → lighttpd (CGI) or nginx (FastCGI) → receive-notification → store →
    /// process-notifications → GET /entitlements, on each backend.
    @Suite("Through lighttpd and nginx: a subscription's life, duplicates, disorder and refusals")
    struct WebServerLifecycleTests {
        static let day = LifecycleSimulator.day

        /// The demo's story: buy, renew, turn auto-renew off, expire, come back, get a refund.
        static func demoStory(group: Int, originalTransactionId: String) -> LifecycleSimulator {
            var story = LifecycleSimulator(originalTransactionId: originalTransactionId, group: group,
                                          start: E2E.nowMilliseconds - 60_000)
            story.subscribe()
            story.renew()
            story.setAutoRenew(false, after: 10 * day)
            story.expire()
            story.resubscribe(after: 20 * day)
            story.refund(after: 3 * day)
            return story
        }

        @Test("SUBSCRIBED, DID_RENEW, AUTO_RENEW_DISABLED, EXPIRED, RESUBSCRIBE, REFUND; then Apple's retries are duplicates",
              arguments: Backend.allCases, Gateway.Kind.allCases)
        func aSubscriptionsLife(_ backend: Backend, _ kind: Gateway.Kind) throws {
            let deployment = try Deployment(backend, gateway: kind)
            let story = Self.demoStory(group: 1, originalTransactionId: "3000000001")
            let signed = try Binaries.sign(story.notifications)
            let id = story.originalTransactionId
            // After each step: status, active, autoRenew, latest transaction.
            let expected: [(String, Bool, Bool, String)] = [
                ("active", true, true, "\(id)1"),
                ("active", true, true, "\(id)2"),
                ("active", true, false, "\(id)2"),
                ("expired", false, false, "\(id)2"),
                ("active", true, true, "\(id)3"),
                ("refunded", false, true, "\(id)3"),
            ]
            for ((notification, payload), want) in zip(zip(story.notifications, signed), expected) {
                let step = "\(notification.type)/\(notification.subtype ?? "-")"
                let answer = try deployment.gateway.deliver(payload)
                #expect(answer.status == 200 && answer.receipt == "accepted", "\(step): \(answer)")
                #expect(answer.json["notificationUUID"] as? String == notification.uuid, "\(step): \(answer)")

                let report = try deployment.work()
                #expect(report.applied == 1 && report.failed == 0 && report.remaining == 0, "\(step): \(report)")

                let entitlement = try deployment.entitlement(appAccountToken: story.appAccountToken)
                #expect(entitlement["status"] as? String == want.0, "\(step): \(entitlement)")
                #expect(entitlement["active"] as? Bool == want.1, "\(step): \(entitlement)")
                #expect(entitlement["autoRenew"] as? Bool == want.2, "\(step): \(entitlement)")
                #expect(entitlement["latestTransactionId"] as? String == want.3, "\(step): \(entitlement)")
                #expect(entitlement.field("lastEvent", "id") as? String == notification.uuid, "\(step): \(entitlement)")
                #expect(entitlement.field("lastEvent", "type") as? String == notification.type, "\(step): \(entitlement)")
            }
            let final = try deployment.entitlement(appAccountToken: story.appAccountToken)

            // Apple retries (a missed 200, a replay): the same notifications again change nothing.
            for index in [1, 3, 5] {
                let answer = try deployment.gateway.deliver(signed[index])
                #expect(answer.status == 200 && answer.receipt == "duplicate", "retry of step \(index + 1): \(answer)")
            }
            #expect(try deployment.store.pendingJobs() == 0)
            let report = try deployment.work()
            #expect(report == NotificationProcessor.Report(), "nothing may be queued by a duplicate: \(report)")
            let after = try deployment.entitlement(appAccountToken: story.appAccountToken)
            #expect(NSDictionary(dictionary: after) == NSDictionary(dictionary: final), "\(after) != \(final)")
            #expect(try deployment.store.record(id) == LifecycleSimulator.inOrderRecord(story.notifications))
            #expect(deployment.gateway.requestLines(of: "receive-notification").count == 9)
        }

        @Test("Delivered shuffled, with the worker after each: the same entitlement as in order", arguments: Backend.allCases, Gateway.Kind.allCases)
        func outOfOrderDelivery(_ backend: Backend, _ kind: Gateway.Kind) throws {
            let deployment = try Deployment(backend, gateway: kind)
            let story = Self.demoStory(group: 2, originalTransactionId: "3000000002")
            let signed = try Binaries.sign(story.notifications)
            var generator = SeededGenerator(seed: 0x5EED_0002)
            var order = Array(signed.indices).shuffled(using: &generator)
            if order == Array(signed.indices) { order.reverse() }

            for index in order {
                let answer = try deployment.gateway.deliver(signed[index])
                #expect(answer.status == 200 && answer.receipt == "accepted", "notification \(index + 1): \(answer)")
                let report = try deployment.work()
                #expect(report.applied + report.stale == 1 && report.failed == 0, "notification \(index + 1): \(report)")
            }
            let shuffled = try deployment.entitlement(appAccountToken: story.appAccountToken)

            // The reference: the same notifications in order, into a store of their own, by the
            // same binaries (direct door), the worker after each.
            let reference = try TestStore(.sqlite)
            let environment = E2E.environment(storeURL: reference.url, adminToken: deployment.adminToken)
            for payload in signed {
                let (answers, exitCode) = try Binaries.receive([payload], environment: environment)
                #expect(answers == ["accepted"] && exitCode == 0, "\(answers)")
                let run = try Binaries.process(environment: environment)
                #expect(run.exitCode == 0 && run.report?.applied == 1, "\(run)")
            }
            let inOrder = try #require((try Binaries.entitlements(appAccountToken: story.appAccountToken,
                                                                  environment: environment)["entitlements"] as? [[String: Any]])?.first)
            #expect(NSDictionary(dictionary: shuffled) == NSDictionary(dictionary: inOrder), "order \(order): \(shuffled) != \(inOrder)")
            #expect(shuffled["status"] as? String == "refunded")
            #expect(shuffled.field("lastEvent", "id") as? String == story.notifications.last?.uuid)
            let record = try deployment.store.record(story.originalTransactionId)
            #expect(record == (try reference.record(story.originalTransactionId)))
            #expect(record == (try LifecycleSimulator.inOrderRecord(story.notifications)))
        }

        @Test("A bad signature, another app, another environment, no or a wrong bearer token: refused, nothing stored",
              arguments: Backend.allCases, Gateway.Kind.allCases)
        func refusals(_ backend: Backend, _ kind: Gateway.Kind) throws {
            let deployment = try Deployment(backend, gateway: kind)
            var story = LifecycleSimulator(originalTransactionId: "3000000003", group: 3, start: E2E.nowMilliseconds - 60_000)
            story.subscribe()
            let genuine = story.notifications[0]
            var tampered = genuine
            tampered.uuid = NotificationSpec.uuid(3, 100)
            var otherApp = genuine
            otherApp.uuid = NotificationSpec.uuid(3, 101)
            otherApp.bundleId = "com.example.someone-else"
            otherApp.transaction.bundleId = "com.example.someone-else"
            var production = genuine
            production.uuid = NotificationSpec.uuid(3, 102)
            production.environment = "Production"
            production.transaction.rawEnvironment = "Production"
            production.renewal?.rawEnvironment = "Production"
            let signed = try Binaries.sign([tampered, otherApp, production])

            let forged = try Self.tamper(signed[0])
            let badSignature = try deployment.gateway.deliver(forged)
            #expect(badSignature.status == 400 && badSignature.errorCode == "VERIFICATION_FAILURE", "\(badSignature)")
            let wrongApp = try deployment.gateway.deliver(signed[1])
            #expect(wrongApp.status == 400 && wrongApp.errorCode == "INVALID_APP_IDENTIFIER", "\(wrongApp)")
            let wrongEnvironment = try deployment.gateway.deliver(signed[2])
            #expect(wrongEnvironment.status == 200 && wrongEnvironment.receipt == "ignored", "\(wrongEnvironment)")

            for notification in [tampered, otherApp, production] {
                #expect(try !deployment.store.hasNotification(notification.uuid), "\(notification.uuid) was stored")
            }
            #expect(try deployment.store.pendingJobs() == 0)
            #expect(try deployment.work() == NotificationProcessor.Report())
            #expect(try deployment.store.record(story.originalTransactionId) == nil)
            let exits = deployment.gateway.requestLines(of: "receive-notification").map { $0["exit"] as? Int }
            #expect(exits == [65, 65, 0], "\(exits)")

            // Internal routes want the admin token; the public notification route does not.
            let noToken = try deployment.gateway.entitlements(appAccountToken: story.appAccountToken, bearer: nil)
            #expect(noToken.status == 401 && noToken.errorCode == "unauthorized", "\(noToken)")
            let wrongToken = try deployment.gateway.entitlements(appAccountToken: story.appAccountToken, bearer: "not-" + deployment.adminToken)
            #expect(wrongToken.status == 401 && wrongToken.errorCode == "unauthorized", "\(wrongToken)")
            let verifyWithoutToken = try deployment.gateway.send(.init(
                method: "POST", url: deployment.gateway.baseURL + "/appstore/verify",
                headers: [("Content-Type", "application/json")], body: Array(#"{"signedData": "x"}"#.utf8)))
            #expect(verifyWithoutToken.status == 401, "\(verifyWithoutToken)")
            let rightToken = try deployment.gateway.entitlements(appAccountToken: story.appAccountToken, bearer: deployment.adminToken)
            #expect(rightToken.status == 200 && (rightToken.json["entitlements"] as? [Any])?.isEmpty == true, "\(rightToken)")
        }

        /// The same header and signature over a payload changed by one field.
        static func tamper(_ jws: String) throws -> String {
            let parts = jws.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 3 else { throw Binaries.Failure("not a compact JWS") }
            var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
            guard let payload = Data(base64Encoded: base64),
                  var object = try JSONSerialization.jsonObject(with: payload) as? [String: Any] else {
                throw Binaries.Failure("payload does not decode")
            }
            object["notificationType"] = "REFUND"
            let changed = try JSONSerialization.data(withJSONObject: object).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            return [parts[0], changed, parts[2]].joined(separator: ".")
        }
    }
}
