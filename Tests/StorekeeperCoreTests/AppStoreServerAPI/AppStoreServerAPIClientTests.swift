import Foundation
import OpenSSLCrypto
import StorekeeperCore
import Testing

/// An HTTPClient that answers from a script and records what it was asked.
final class ScriptedHTTPClient: HTTPClient, @unchecked Sendable {
    enum Step {
        case answer(Int, [(String, String)], String)
        case fail(HTTPError)
    }

    private(set) var requests: [HTTPRequest] = []
    private var steps: [Step]
    private let fallback: Step

    init(_ steps: [Step], then fallback: Step = .answer(500, [], "")) {
        self.steps = steps
        self.fallback = fallback
    }

    func send(_ request: HTTPRequest) throws(HTTPError) -> HTTPResponse {
        requests.append(request)
        let step = steps.isEmpty ? fallback : steps.removeFirst()
        switch step {
        case .answer(let status, let headers, let body):
            return HTTPResponse(status: status, headers: headers.map { ($0.0.lowercased(), $0.1) }, body: Array(body.utf8))
        case .fail(let error):
            throw error
        }
    }
}

/// Time that records every wait and moves a virtual monotonic clock instead of sleeping; the
/// wall time stands still at `wall`. One test, one thread: hence unchecked.
final class RecordingTiming: TimeSource, @unchecked Sendable {
    private(set) var waits: [Duration] = []
    private var elapsed: Duration = .zero
    let wall: Date
    /// What `now()` answers: decisions pinned elsewhere than the wall time.
    let decisions: Date
    /// The backoff's jitter.
    let unit: Double
    /// Time each attempt is pretended to take.
    var attemptCost: Duration = .zero

    init(unit: Double = 0.5, wall: Date = AppStoreServerAPIClientTests.now, decisions: Date? = nil) {
        self.unit = unit
        self.wall = wall
        self.decisions = decisions ?? wall
    }

    func now() -> Date { decisions }
    func realNow() -> Date { wall }
    func monotonic() -> Duration {
        elapsed += attemptCost / 2
        return elapsed
    }
    func sleep(for duration: Duration) {
        waits.append(duration)
        elapsed += duration
    }
}

final class RecordingGate: AppStoreAPIRequestGate {
    private(set) var attempts: [AppStoreAPIAttempt] = []
    private(set) var retryAfters: [Duration] = []
    func willSend(_ attempt: AppStoreAPIAttempt) throws(AppStoreAPIError) { attempts.append(attempt) }
    func didReceiveRetryAfter(_ delay: Duration, for attempt: AppStoreAPIAttempt) { retryAfters.append(delay) }
}

@Suite struct AppStoreServerAPIClientTests {
    static let key: ECPrivateKey = {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/pki/appstore-api-key.p8").path
        // The committed test key: a missing fixture is a broken checkout, not outside data.
        guard let pem = try? String(contentsOfFile: path, encoding: .utf8), let key = try? ECPrivateKey(pem: pem) else {
            preconditionFailure("Tests/Fixtures/pki/appstore-api-key.p8 is missing")
        }
        return key
    }()

    static let credentials = AppStoreAPICredentials(keyId: "TESTKEY123", issuerId: "57246542-96fe-1a63-e053-0824d011072a",
                                                    bundleId: "com.example.storekeeper", privateKey: key)
    static let now = Date(timeIntervalSince1970: 1_780_272_000)

    static func client(_ http: ScriptedHTTPClient, timing: RecordingTiming = RecordingTiming(),
                       gate: any AppStoreAPIRequestGate = OpenRequestGate(),
                       policy: AppStoreAPIRetryPolicy = .default) -> AppStoreServerAPIClient {
        AppStoreServerAPIClient(credentials: credentials, http: http,
                                baseURLs: .overridden("http://127.0.0.1:9"), time: timing,
                                retryPolicy: policy, randomUnit: { timing.unit }, gate: gate)
    }

    static let notFound = #"{"errorCode": 4040010, "errorMessage": "Transaction id not found."}"#

    @Test func tokenHasApplesHeaderAndClaimsAndVerifies() throws {
        let token = try AppStoreAPIToken.make(credentials: Self.credentials, issuedAt: Self.now)
        let jws = try CompactJWS(parsing: token)
        #expect(jws.header.alg == "ES256")
        #expect(jws.header.kid == "TESTKEY123")
        #expect(jws.header.typ == "JWT")
        let claims = try JSONDecoder().decode(AppStoreAPIToken.Claims.self, from: Data(jws.payload))
        #expect(claims.iss == "57246542-96fe-1a63-e053-0824d011072a")
        #expect(claims.aud == "appstoreconnect-v1")
        #expect(claims.bid == "com.example.storekeeper")
        #expect(claims.iat == 1_780_272_000)
        #expect(claims.exp == 1_780_272_300)
        #expect(Self.key.publicKey.isValidES256Signature(jws.signature, for: jws.signingInput))
    }

    @Test func tokenLifetimeNeverExceedsAnHour() throws {
        let token = try AppStoreAPIToken.make(credentials: Self.credentials, issuedAt: Self.now, lifetime: .seconds(86_400))
        let claims = try JSONDecoder().decode(AppStoreAPIToken.Claims.self, from: Data(CompactJWS(parsing: token).payload))
        #expect(claims.exp - claims.iat == 3600)
    }

    @Test func tokensAreDatedByTheRealWallTimeNotByPinnedDecisions() throws {
        let http = ScriptedHTTPClient([.answer(200, [], #"{"signedTransactionInfo":"x"}"#)])
        let pinned = RecordingTiming(decisions: Date(timeIntervalSince1970: 1_000_000_000))
        _ = try Self.client(http, timing: pinned).getTransactionInfo(transactionId: "1000")
        let authorization = http.requests.first?.headers.first { $0.0 == "Authorization" }?.1 ?? ""
        let token = try CompactJWS(parsing: String(authorization.dropFirst("Bearer ".count)))
        let claims = try JSONDecoder().decode(AppStoreAPIToken.Claims.self, from: Data(token.payload))
        #expect(claims.iat == Int64(Self.now.timeIntervalSince1970))
    }

    @Test func historyQueryRepeatsListsAndKeepsTheRevision() throws {
        let http = ScriptedHTTPClient([.answer(200, [], #"{"revision":"r2","hasMore":false,"signedTransactions":[]}"#)])
        let request = TransactionHistoryRequest(startDate: 1, endDate: 2, productIds: ["a.b", "c d"],
                                                productTypes: ["AUTO_RENEWABLE", "CONSUMABLE"], sort: "DESCENDING",
                                                subscriptionGroupIdentifiers: ["g1"], inAppOwnershipType: "PURCHASED", revoked: false)
        let answer = try Self.client(http).getTransactionHistory(transactionId: "1000", revision: "r1", request: request)
        #expect(answer.value.revision == "r2")
        #expect(http.requests.first?.url == "http://127.0.0.1:9/inApps/v2/history/1000?revision=r1&startDate=1&endDate=2&productId=a.b&productId=c%20d&productType=AUTO_RENEWABLE&productType=CONSUMABLE&sort=DESCENDING&subscriptionGroupIdentifier=g1&inAppOwnershipType=PURCHASED&revoked=false")
        let authorization = http.requests.first?.headers.first { $0.0 == "Authorization" }?.1 ?? ""
        #expect(authorization.hasPrefix("Bearer ey"))
    }

    @Test func bodiesAreJSONWithApplesFieldNames() throws {
        let http = ScriptedHTTPClient([.answer(202, [], "")])
        _ = try Self.client(http).sendConsumptionInformation(
            transactionId: "42", request: ConsumptionRequest(customerConsented: true, deliveryStatus: "DELIVERED",
                                                             sampleContentProvided: false, consumptionPercentage: 25000,
                                                             refundPreference: "DECLINE"))
        let request = try #require(http.requests.first)
        #expect(request.method == "PUT")
        #expect(request.url.hasSuffix("/inApps/v2/transactions/consumption/42"))
        #expect(String(decoding: request.body, as: UTF8.self) == #"{"consumptionPercentage":25000,"customerConsented":true,"deliveryStatus":"DELIVERED","refundPreference":"DECLINE","sampleContentProvided":false}"#)
    }

    @Test func serverErrorsRetryWithBoundedFullJitter() throws {
        let timing = RecordingTiming(unit: 0.5)
        let http = ScriptedHTTPClient([.answer(503, [], ""), .fail(HTTPError(.timedOut, "slow")),
                                       .answer(200, [], #"{"signedTransactionInfo":"x.y.z"}"#)])
        let answer = try Self.client(http, timing: timing).getTransactionInfo(transactionId: "1")
        #expect(answer.value.signedTransactionInfo == "x.y.z")
        #expect(answer.attempts == 3)
        // Half of the ceilings 500 ms and 1 s.
        #expect(timing.waits == [.milliseconds(250), .milliseconds(500)])
    }

    @Test func backoffCeilingsDoubleUpToTheMaximum() {
        let policy = AppStoreAPIRetryPolicy(initialBackoff: .milliseconds(500), maximumBackoff: .seconds(3))
        #expect((1...5).map(policy.backoffCeiling(retry:)) == [.milliseconds(500), .seconds(1), .seconds(2), .seconds(3), .seconds(3)])
        #expect(policy.backoff(retry: 3, unit: 0.999) < .seconds(2))
        #expect(policy.backoff(retry: 3, unit: 0) == .zero)
    }

    @Test func rateLimitHonoursRetryAfterAndTellsTheGate() throws {
        let timing = RecordingTiming()
        let gate = RecordingGate()
        let http = ScriptedHTTPClient([.answer(429, [("Retry-After", "7")], #"{"errorCode":4290000,"errorMessage":"Rate limit exceeded."}"#),
                                       .answer(200, [], #"{"testNotificationToken":"t"}"#)])
        let answer = try Self.client(http, timing: timing, gate: gate).requestTestNotification()
        #expect(answer.value.testNotificationToken == "t")
        #expect(timing.waits == [.seconds(7)])
        #expect(gate.retryAfters == [.seconds(7)])
        #expect(gate.attempts.map(\.number) == [1, 2])
        #expect(gate.attempts.allSatisfy { $0.operation == "requestTestNotification" })
    }

    @Test func nonRetryableAppleErrorIsTypedAndNotRetried() {
        let timing = RecordingTiming()
        let http = ScriptedHTTPClient([.answer(404, [], Self.notFound)])
        #expect {
            _ = try Self.client(http, timing: timing).getTransactionInfo(transactionId: "9")
        } throws: { error in
            let error = error as? AppStoreAPIError
            return error?.code == "TransactionIdNotFoundError" && error?.errorCode == 4040010
                && error?.isRetryable == false && error?.attempts == 1
        }
        #expect(http.requests.count == 1)
        #expect(timing.waits.isEmpty)
    }

    @Test func unauthorizedIsNotRetried() {
        let http = ScriptedHTTPClient([.answer(401, [], "Unauthenticated")])
        #expect {
            _ = try Self.client(http).lookUpOrderId(orderId: "MK5TTTVWJH")
        } throws: { error in
            (error as? AppStoreAPIError)?.kind == .unauthorized && (error as? AppStoreAPIError)?.code == "api_token_refused"
        }
        #expect(http.requests.count == 1)
    }

    @Test func productionNotFoundFallsBackToTheSandbox() throws {
        let http = ScriptedHTTPClient([.answer(404, [], Self.notFound),
                                       .answer(200, [], #"{"signedTransactionInfo":"s"}"#)])
        let answer = try Self.client(http).getTransactionInfo(transactionId: "7", environment: .production, sandboxFallback: true)
        #expect(answer.environment == .sandbox)
        #expect(answer.attempts == 2)
        #expect(http.requests.map(\.url) == ["http://127.0.0.1:9/inApps/v1/transactions/7",
                                             "http://127.0.0.1:9/sandbox/inApps/v1/transactions/7"])
    }

    @Test func noFallbackWithoutPermissionOrForOtherErrors() {
        let http = ScriptedHTTPClient([.answer(404, [], Self.notFound)])
        #expect(throws: AppStoreAPIError.self) {
            _ = try Self.client(http).getTransactionInfo(transactionId: "7", sandboxFallback: false)
        }
        let other = ScriptedHTTPClient([.answer(400, [], #"{"errorCode":4000006,"errorMessage":"Invalid transaction id."}"#)])
        #expect(throws: AppStoreAPIError.self) {
            _ = try Self.client(other).getTransactionInfo(transactionId: "x", sandboxFallback: true)
        }
        #expect(http.requests.count == 1)
        #expect(other.requests.count == 1)
    }

    @Test func theDeadlineBoundsTheWholeCall() {
        let timing = RecordingTiming(unit: 0.99)
        timing.attemptCost = .seconds(1)
        let policy = AppStoreAPIRetryPolicy(maximumAttempts: 10, initialBackoff: .seconds(1), maximumBackoff: .seconds(4),
                                            deadline: .seconds(6))
        let http = ScriptedHTTPClient([], then: .answer(500, [], #"{"errorCode":5000001,"errorMessage":"retry"}"#))
        #expect {
            _ = try Self.client(http, timing: timing, policy: policy).getRefundHistory(transactionId: "1")
        } throws: { error in
            (error as? AppStoreAPIError)?.isRetryable == true
        }
        var total = Duration.zero
        for wait in timing.waits { total += wait }
        #expect(total < .seconds(6))
        #expect(http.requests.count < 10)
        #expect(http.requests.allSatisfy { $0.timeout <= .seconds(6) })
    }

    @Test func everyDocumentedCodeHasOneName() {
        let codes = AppStoreAPIErrorCode.all.map(\.code)
        #expect(Set(codes).count == codes.count)
        #expect(AppStoreAPIErrorCode.entry(4000005)?.name == "InvalidRequestRevisionError")
        #expect(AppStoreAPIErrorCode.entry(4000006)?.name == "InvalidTransactionIdError")
        #expect(AppStoreAPIErrorCode.entry(5000001)?.isRetryable == true)
        #expect(AppStoreAPIErrorCode.entry(4040010)?.isRetryable == false)
    }
}
