import Foundation
import StorekeeperCore
import Testing

/// The request's states in the store: recorded once, answered or not (and why), retried
/// until the deadline and never after, closed once by Apple's decision.
@Suite("Refund requests: recorded, answered, retried until the deadline, closed")
struct RefundRequestLifecycleTests {
    typealias F = RefundFixtures

    @Test func aRequestIsRecordedOnceAndAnsweredWithTheExactBody() throws {
        let world = RefundWorld()
        let notification = try F.notification("CONSUMPTION_REQUEST", uuid: "u1")
        #expect(try world.notice(notification) == .recorded)
        #expect(try world.notice(notification) == .duplicate, "a redelivery records nothing")
        let recorded = try #require(try world.stored())
        #expect(recorded.state == .open && recorded.deadline == F.deadline && recorded.consumptionRequestReason == "UNINTENDED_PURCHASE")
        #expect(world.due.count == 1)

        try world.consent()
        _ = try world.facts.recordConsumption(transactionId: "3000000001", deliveryStatus: "DELIVERED", consumptionPercentage: 0,
                                              at: F.asked, by: "test", reason: nil)
        let work = try world.answerer.answerDue()
        #expect(work.answered == 1 && work.waiting == 0)
        let request = try #require(world.http.requests.first)
        #expect(request.method == "PUT" && request.url == "http://apple.test/sandbox/inApps/v2/transactions/consumption/3000000001")
        #expect(String(decoding: request.body, as: UTF8.self)
                == #"{"consumptionPercentage":0,"customerConsented":true,"deliveryStatus":"DELIVERED","sampleContentProvided":false}"#)
        #expect(request.headers.contains { $0.0 == "Authorization" && $0.1.hasPrefix("Bearer ey") })
        let answered = try #require(try world.stored())
        #expect(answered.state == .answered && answered.sent?.consumptionPercentage == 0 && answered.attempts == 1)
        #expect(world.due.isEmpty)
        #expect(try world.answerer.answerDue() == RefundRequestsWork(), "nothing is sent twice")
        #expect(world.http.requests.count == 1)
    }

    @Test func withoutConsentItWaitsAndIsAnsweredOnceConsentIsRecordedBeforeTheDeadline() throws {
        let world = RefundWorld()
        _ = try world.notice(try F.notification("CONSUMPTION_REQUEST", uuid: "u1"))
        var work = try world.answerer.answerDue()
        #expect(work.waiting == 1 && world.http.requests.isEmpty)
        #expect(try world.stored()?.waitingFor == "no_consent")
        #expect(try world.answerer.answerDue() == RefundRequestsWork(), "not due again before its recheck")
        try world.consent()
        world.clock.milliseconds += RefundAnswerer.recheck
        work = try world.answerer.answerDue()
        #expect(work.answered == 1 && world.http.requests.count == 1)
    }

    @Test func withoutConsentByTheDeadlineItIsNotAnsweredAndSaysWhy() throws {
        let world = RefundWorld()
        _ = try world.notice(try F.notification("CONSUMPTION_REQUEST", uuid: "u1"))
        for _ in 0..<200 where try world.stored()?.state == .open {
            world.clock.milliseconds += RefundAnswerer.recheck
            _ = try world.answerer.answerDue()
        }
        let request = try #require(try world.stored())
        #expect(request.state == .notAnswered && request.notAnsweredReason == "no_consent")
        #expect(world.http.requests.isEmpty && world.due.isEmpty)
        #expect(world.clock.milliseconds >= F.deadline)
    }

    @Test func assignedOwnershipIsNotAnswered() throws {
        let world = RefundWorld()
        try world.consent()
        _ = try world.notice(try F.notification("CONSUMPTION_REQUEST", uuid: "u1", ownership: "ASSIGNED"))
        #expect(try world.answerer.answerDue().notAnswered == 1)
        #expect(try world.stored()?.notAnsweredReason == "assigned_ownership" && world.http.requests.isEmpty)
    }

    @Test func appleUnavailableIsRetriedWithBackoffAndA4xxIsFinal() throws {
        let world = RefundWorld()
        world.http = ScriptedHTTPClient([.answer(503, [], ""), .answer(429, [("Retry-After", "600")], #"{"errorCode":4290000}"#),
                                         .fail(HTTPError(.timedOut, "slow")),
                                         .answer(400, [], #"{"errorCode":4000036,"errorMessage":"Invalid delivery status."}"#)])
        try world.consent()
        _ = try world.notice(try F.notification("CONSUMPTION_REQUEST", uuid: "u1"))
        #expect(try world.answerer.answerDue().waiting == 1 && world.http.requests.count == 1, "one attempt a run")
        var request = try #require(try world.stored())
        #expect(request.waitingFor == "apple_unavailable" && request.lastError?.httpStatus == 503 && request.attempts == 1)
        #expect(request.nextAttemptAt == world.clock.milliseconds + 60_000)
        #expect(try world.answerer.answerDue() == RefundRequestsWork(), "not before its time")

        world.clock.milliseconds += 60_000
        _ = try world.answerer.answerDue()
        request = try #require(try world.stored())
        #expect(request.nextAttemptAt == world.clock.milliseconds + 600_000, "Retry-After is longer than the backoff")
        #expect(request.lastError?.errorCode == 4_290_000)

        world.clock.milliseconds += 600_000
        _ = try world.answerer.answerDue()
        request = try #require(try world.stored())
        #expect(request.waitingFor == "apple_unavailable" && request.attempts == 3 && request.lastError?.httpStatus == nil)
        #expect(request.nextAttemptAt == world.clock.milliseconds + 240_000)

        world.clock.milliseconds += 30 * 60_000
        _ = try world.answerer.answerDue()
        request = try #require(try world.stored())
        #expect(request.state == .notAnswered && request.notAnsweredReason == "apple_refused" && request.attempts == 4)
        #expect(request.lastError?.errorCode == 4_000_036 && request.lastError?.code == "InvalidDeliveryStatusError")
        #expect(world.due.isEmpty && world.http.requests.count == 4)
    }

    @Test func retriesStopAtTheDeadline() throws {
        let world = RefundWorld()
        world.http = ScriptedHTTPClient([], then: .answer(500, [], ""))
        try world.consent()
        _ = try world.notice(try F.notification("CONSUMPTION_REQUEST", uuid: "u1"))
        for _ in 0..<100 where try world.stored()?.state == .open {
            _ = try world.answerer.answerDue()
            world.clock.milliseconds = try #require(try world.stored()?.nextAttemptAt ?? world.clock.milliseconds)
        }
        let request = try #require(try world.stored())
        #expect(request.state == .notAnswered && request.notAnsweredReason == "apple_unavailable")
        #expect(request.lastAttemptAt.map { $0 < F.deadline } == true && world.http.requests.count == request.attempts)
        #expect(world.http.requests.count > 20 && world.http.requests.count < 40, "backoff up to 30 minutes: \(world.http.requests.count)")
    }

    @Test func neverSentAtOrAfterTheDeadline() throws {
        let world = RefundWorld()
        try world.consent()
        _ = try world.notice(try F.notification("CONSUMPTION_REQUEST", uuid: "u1"))
        _ = try world.notice(try F.notification("CONSUMPTION_REQUEST", uuid: "u2", transactionId: "3000000002"))
        // The worker did not run for 12 hours.
        world.clock.milliseconds = F.deadline - 1
        #expect(try world.answerer.answerDue(limit: 1).answered == 1, "a millisecond before: sent")
        world.clock.milliseconds = F.deadline
        #expect(try world.answerer.answerDue().notAnswered == 1)
        #expect(try world.stored("3000000002")?.notAnsweredReason == "deadline_passed")
        #expect(world.http.requests.count == 1)
    }

    @Test func withoutCredentialsRequestsAreRecordedAndReportedButNeverSent() throws {
        let world = RefundWorld()
        world.credentials = nil
        try world.consent()
        _ = try world.notice(try F.notification("CONSUMPTION_REQUEST", uuid: "u1"))
        let work = try world.answerer.answerDue()
        #expect(work.waiting == 1 && work.noCredentials == 1)
        world.clock.milliseconds = F.deadline
        _ = try world.answerer.answerDue()
        #expect(try world.stored()?.notAnsweredReason == "no_credentials")
    }

    @Test func outcomesCloseOnceAndLateNotificationsNeverReopen() throws {
        let world = RefundWorld()
        try world.consent()
        _ = try world.notice(try F.notification("CONSUMPTION_REQUEST", uuid: "u1"))
        _ = try world.answerer.answerDue()
        #expect(try world.notice(try F.notification("REFUND", uuid: "r1", signedDate: F.asked + 3_600_000)) == .closed)
        #expect(try world.notice(try F.notification("REFUND", uuid: "r1", signedDate: F.asked + 3_600_000)) == .alreadyClosed)
        #expect(try world.notice(try F.notification("REFUND_DECLINED", uuid: "d1", signedDate: F.asked + 7_200_000)) == .alreadyClosed)
        #expect(try world.notice(try F.notification("CONSUMPTION_REQUEST", uuid: "u9", signedDate: F.asked + 9_000_000)) == .duplicate,
                "a closed request is never reopened")
        let closed = try #require(try world.stored())
        #expect(closed.state == .closed && closed.outcome == .refunded && closed.sent != nil && closed.outcomeNotificationUUID == "r1")
        #expect(try world.notice(try F.notification("REFUND", uuid: "d2", transactionId: "3000000099")) == .withoutRequest)
        #expect(try world.stored("3000000099")?.requests == 0, "Apple's decision is kept alone")
        #expect(try world.repository.newest(bundleId: F.bundleId, environment: "Sandbox", limit: 10).requests.map(\.transactionId)
                == ["3000000001"], "and is no request of the report")
    }

    /// Refunds jump the queue: after an outage Apple's decision may be applied before the request.
    @Test func aRequestMetAfterApplesDecisionIsRecordedClosedAndNeverAnswered() throws {
        let world = RefundWorld()
        try world.consent()
        #expect(try world.notice(try F.notification("REFUND", uuid: "r1", signedDate: F.asked + 3_600_000)) == .withoutRequest)
        #expect(try world.notice(try F.notification("CONSUMPTION_REQUEST", uuid: "u1")) == .recorded)
        #expect(try world.notice(try F.notification("CONSUMPTION_REQUEST", uuid: "u1")) == .duplicate)
        #expect(try world.answerer.answerDue() == RefundRequestsWork() && world.http.requests.isEmpty && world.due.isEmpty)
        let request = try #require(try world.stored())
        #expect(request.state == .closed && request.outcome == .refunded && request.requests == 1)
        #expect(request.consumptionRequestReason == "UNINTENDED_PURCHASE" && request.closedAt == F.asked + 3_600_000)
        let (requests, recorded) = try world.repository.newest(bundleId: F.bundleId, environment: "Sandbox", limit: 10)
        let report = RefundRequestsReport(bundleId: F.bundleId, environment: "Sandbox", recorded: recorded, requests: requests)
        #expect(report.byReason["UNINTENDED_PURCHASE"]?.refunded == 1 && report.closed.count == 1)
    }

    @Test func anOpenRequestClosedBeforeItsAnswerIsNotSent() throws {
        let world = RefundWorld()
        try world.consent()
        _ = try world.notice(try F.notification("CONSUMPTION_REQUEST", uuid: "u1"))
        _ = try world.notice(try F.notification("REFUND_DECLINED", uuid: "d1", signedDate: F.asked + 1_000))
        #expect(try world.answerer.answerDue() == RefundRequestsWork())
        #expect(world.http.requests.isEmpty && world.due.isEmpty)
        #expect(try world.stored()?.outcome == .declined)
    }

    @Test func appleAskingAgainLaterStartsANewRoundAndAnOlderRequestChangesNothing() throws {
        let world = RefundWorld()
        try world.consent()
        _ = try world.notice(try F.notification("CONSUMPTION_REQUEST", uuid: "u1"))
        _ = try world.answerer.answerDue()
        #expect(try world.notice(try F.notification("CONSUMPTION_REQUEST", uuid: "u0", signedDate: F.asked - 1_000)) == .duplicate)
        #expect(try world.notice(try F.notification("CONSUMPTION_REQUEST", uuid: "u2", signedDate: F.asked + 1_000)) == .recorded)
        let again = try #require(try world.stored())
        #expect(again.state == .open && again.requests == 2 && again.deadline == F.deadline + 1_000 && again.sent == nil)
        #expect(try world.answerer.answerDue().answered == 1 && world.http.requests.count == 2)
    }

    @Test func theReportSortsByStateAndComputesTheRefundRateByReason() throws {
        let world = RefundWorld()
        try world.consent()
        let reasons = ["UNINTENDED_PURCHASE", "UNINTENDED_PURCHASE", "UNINTENDED_PURCHASE", "LEGAL"]
        for (index, reason) in reasons.enumerated() {
            _ = try world.notice(try F.notification("CONSUMPTION_REQUEST", uuid: "u\(index)", signedDate: F.asked + Int64(index),
                                                    transactionId: "300000001\(index)", reason: reason))
        }
        _ = try world.answerer.answerDue(limit: 3)
        _ = try world.notice(try F.notification("REFUND", uuid: "r0", transactionId: "3000000010"))
        _ = try world.notice(try F.notification("REFUND_DECLINED", uuid: "d1", transactionId: "3000000011"))
        let (requests, recorded) = try world.repository.newest(bundleId: F.bundleId, environment: "Sandbox", limit: 10)
        let report = RefundRequestsReport(bundleId: F.bundleId, environment: "Sandbox", recorded: recorded, requests: requests)
        #expect(report.examined == 4 && report.open.map(\.transactionId) == ["3000000013"])
        #expect(report.answered.map(\.transactionId) == ["3000000012"] && report.closed.count == 2)
        #expect(report.byReason["UNINTENDED_PURCHASE"]?.refundRate == 0.5 && report.byReason["UNINTENDED_PURCHASE"]?.requests == 3)
        #expect(report.byReason["LEGAL"]?.refundRate == nil)
        #expect(try world.repository.newest(bundleId: F.bundleId, environment: "Sandbox", limit: 2).requests.map(\.transactionId)
                == ["3000000013", "3000000012"], "newest first, bounded")
    }

    /// Requests waiting for consent cost reads only: 30 of them due first do not keep a consented one waiting.
    @Test func aBacklogWithoutConsentDoesNotStarveAConsentedRequest() throws {
        let world = RefundWorld()
        for index in 0..<30 {
            _ = try world.notice(try F.notification("CONSUMPTION_REQUEST", uuid: "n\(index)", transactionId: String(3_100_000_000 + index),
                                                    appAccountToken: nil))
        }
        try world.consent()
        world.clock.milliseconds += 1
        _ = try world.notice(try F.notification("CONSUMPTION_REQUEST", uuid: "c"))
        let work = try world.answerer.answerDue()
        #expect(work.answered == 1 && work.waiting == 30, "\(work)")
    }

    /// Apple refusing the key (401) is everyone's problem: the run stops, the request waits and says why.
    @Test func aRefusedKeyStopsTheRunAndTheRequestsWait() throws {
        let world = RefundWorld()
        world.http = ScriptedHTTPClient([], then: .answer(401, [], "Unauthenticated"))
        try world.consent()
        _ = try world.notice(try F.notification("CONSUMPTION_REQUEST", uuid: "u1"))
        _ = try world.notice(try F.notification("CONSUMPTION_REQUEST", uuid: "u2", transactionId: "3000000002"))
        #expect(try world.answerer.answerDue().waiting == 1 && world.http.requests.count == 1)
        let request = try #require(try world.stored())
        #expect(request.waitingFor == "credentials_refused" && request.lastError?.code == "api_token_refused")
        #expect(request.nextAttemptAt == world.clock.milliseconds + RefundAnswerer.recheck)
    }
}
