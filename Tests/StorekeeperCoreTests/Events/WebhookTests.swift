import Foundation
import StorekeeperCore
import Testing

@Suite("Webhooks: secrets, the retry schedule, the endpoint's name outside, Standard Webhooks signatures")
struct WebhookTests {
    @Test func secretsAreWhsecBase64AndSeveralWhileRotating() throws {
        let one = try #require(WebhookSecret.parseList("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
        #expect(one.count == 1 && one[0].key.count == 24)
        #expect(WebhookSecret.parseList("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw  whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")?.count == 2)
        for bad in ["", "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_not base64!", "whsec_c2hvcnQ=", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw oops"] {
            #expect(WebhookSecret.parseList(bad) == nil, "\(bad)")
        }
        #expect(!String(describing: one[0]).contains("MfKQ"))
    }

    /// Standard Webhooks' own example (the libraries' test vector): this id, timestamp, body
    /// and secret sign to this signature.
    @Test func signsAsStandardWebhooksSpecifies() throws {
        let secret = try #require(WebhookSecret.parseList("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
        let headers = try WebhookSignature.headers(id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330,
                                                   body: Array(#"{"test": 2432232314}"#.utf8), secrets: secret)
        #expect(headers.map(\.0) == ["webhook-id", "webhook-timestamp", "webhook-signature"])
        #expect(headers[1].1 == "1614265330")
        #expect(headers[2].1 == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
    }

    @Test func retryScheduleWithJitterForThreeDays() {
        let low = WebhookRetrySchedule { 0 }
        let high = WebhookRetrySchedule { 0.999_999 }
        let t0: Int64 = 1_000_000
        #expect(low.nextDue(failures: 1, firstFailedAt: t0, now: t0) == t0 + 4_000)
        #expect(high.nextDue(failures: 1, firstFailedAt: t0, now: t0) == t0 + 6_000)
        #expect(low.nextDue(failures: 2, firstFailedAt: t0, now: t0) == t0 + 24_000)
        #expect(low.nextDue(failures: 5, firstFailedAt: t0, now: t0) == t0 + 2_880_000)
        #expect(low.nextDue(failures: 9, firstFailedAt: t0, now: t0) == t0 + 17_280_000)
        // Past three days after the first failure: dead-lettered.
        let late = t0 + 70 * 3_600_000
        #expect(low.nextDue(failures: 12, firstFailedAt: t0, now: late) == nil)
        #expect(low.nextDue(failures: 12, firstFailedAt: t0, now: t0 + 60 * 3_600_000) != nil)
    }

    @Test func anEndpointIsNamedOutsideByItsHostOnly() {
        let endpoint = WebhookEndpoint(name: "chat", url: "https://user:pw@hooks.slack.com:443/services/T0/B0/secret?x=1", secrets: [])
        #expect(endpoint.host == "hooks.slack.com:443")
        #expect(WebhookEndpoint(name: "a", url: "http://127.0.0.1:9", secrets: []).host == "127.0.0.1:9")
    }

    @Test func filtersByTypeAndEnvironment() {
        let event = Event(id: "e", type: "REFUND", occurredAt: 0, recordedAt: 0, environment: "Sandbox", source: "notification")
        #expect(WebhookEndpoint(name: "a", url: "https://x", secrets: []).accepts(event))
        #expect(!WebhookEndpoint(name: "a", url: "https://x", secrets: [], types: ["RENEWAL"]).accepts(event))
        #expect(!WebhookEndpoint(name: "a", url: "https://x", secrets: [], environments: ["Production"]).accepts(event))
        #expect(WebhookEndpoint(name: "a", url: "https://x", secrets: [], types: ["REFUND"], environments: ["Sandbox"]).accepts(event))
    }
}
