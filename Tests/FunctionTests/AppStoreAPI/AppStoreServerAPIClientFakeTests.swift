import Foundation
import HTTPTransport
import OpenSSLCrypto
import StorekeeperCore
import Testing
import TestSupport

/// The App Store Server API client against the fake App Store: every operation end to end,
/// paging, Apple's errors, retries and their waits, the sandbox fallback and refused tokens.
/// Each test starts its own fake (faults and the request log are per fake).
@Suite struct AppStoreServerAPIClientFakeTests {
    static func apiError(_ body: () throws -> Void) -> AppStoreAPIError? {
        do {
            try body()
            return nil
        } catch let error as AppStoreAPIError {
            return error
        } catch {
            return nil
        }
    }

    // MARK: Every operation

    @Test func lookupsAnswerTheScenarioWithVerifiableSignedFields() throws {
        let fake = try FakeAppStore.start()
        defer { fake.stop() }
        let client = try FakeAppStoreClient.make(fake)

        let info = try client.getTransactionInfo(transactionId: "1000000003")
        #expect(info.environment == .production)
        let transaction = try FakeAppStoreClient.transaction(info.value.signedTransactionInfo)
        #expect(transaction.transactionId == "1000000003")
        #expect(transaction.originalTransactionId == "1000000001")

        let statuses = try client.getAllSubscriptionStatuses(transactionId: "1000000002", status: [1])
        let item = try #require(statuses.value.data?.first?.lastTransactions?.first)
        #expect(statuses.value.data?.first?.subscriptionGroupIdentifier == "21000001")
        #expect(item.status == .active)
        #expect(try FakeAppStoreClient.transaction(item.signedTransactionInfo).transactionId == "1000000005")
        let renewal = try FakeAppStoreClient.verifier.verify(item.signedRenewalInfo ?? "", as: .renewalInfo, now: Date())
            .decode(JWSRenewalInfoDecodedPayload.self)
        #expect(renewal.autoRenewStatus == .on)
        let expired = try client.getAllSubscriptionStatuses(transactionId: "1000000002", status: [2])
        #expect(expired.value.data?.isEmpty == true)

        let app = try client.getAppTransactionInfo(transactionId: "1000000001")
        let appTransaction = try FakeAppStoreClient.verifier.verify(app.value.signedAppTransactionInfo ?? "", as: .appTransaction, now: Date())
        #expect(appTransaction.environment == .production)

        let order = try client.lookUpOrderId(orderId: "MK5TTTVWJH")
        #expect(order.value.status == .valid)
        #expect(order.value.signedTransactions?.count == 7)
        #expect(try client.lookUpOrderId(orderId: "NOSUCHORDER").value.status == .invalid)

        let paths = try fake.requests().compactMap { $0["path"] as? String }
        #expect(paths == ["/inApps/v1/transactions/1000000003", "/inApps/v1/subscriptions/1000000002",
                          "/inApps/v1/subscriptions/1000000002", "/inApps/v1/transactions/appTransactions/1000000001",
                          "/inApps/v1/lookup/MK5TTTVWJH", "/inApps/v1/lookup/NOSUCHORDER"])
        let statusQueries = try fake.requests().filter { ($0["path"] as? String)?.contains("subscriptions") == true }
            .map { ($0["query"] as? [String: [String]])?["status"] ?? [] }
        #expect(statusQueries == [["1"], ["2"]])
    }

    @Test func transactionHistoryPagesToTheEndRepeatingItsFilters() throws {
        let fake = try FakeAppStore.start()
        defer { fake.stop() }
        let client = try FakeAppStoreClient.make(fake)
        let request = TransactionHistoryRequest(productTypes: ["AUTO_RENEWABLE"], sort: "DESCENDING")
        var revision: String?
        var ids: [String] = []
        var pages = 0
        repeat {
            let page = try client.getTransactionHistory(transactionId: "1000000001", revision: revision, request: request)
            pages += 1
            ids += try (page.value.signedTransactions ?? []).map { try FakeAppStoreClient.transaction($0).transactionId ?? "" }
            revision = page.value.hasMore == true ? page.value.revision : nil
            #expect(page.value.bundleId == FakeAppStore.bundleId)
            #expect(page.value.environment == .production)
        } while revision != nil && pages < 10
        #expect(pages == 3)
        #expect(ids == ["1000000005", "1000000004", "1000000003", "1000000002", "1000000001"])
        let queries = try fake.requests().map { $0["query"] as? [String: [String]] ?? [:] }
        #expect(queries.count == 3)
        #expect(queries.allSatisfy { $0["productType"] == ["AUTO_RENEWABLE"] && $0["sort"] == ["DESCENDING"] })
        #expect(queries.dropFirst().allSatisfy { $0["revision"] != nil })

        // A revision with other filters is Apple's InvalidRequestRevisionError, never retried.
        let first = try client.getTransactionHistory(transactionId: "1000000001", request: request)
        let error = Self.apiError {
            _ = try client.getTransactionHistory(transactionId: "1000000001", revision: first.value.revision,
                                                 request: TransactionHistoryRequest(productIds: ["com.example.coins"]))
        }
        #expect(error?.code == "InvalidRequestRevisionError")
        #expect(error?.errorCode == 4000005)
        #expect(error?.attempts == 1)
    }

    @Test func historyFiltersReachTheServer() throws {
        let fake = try FakeAppStore.start()
        defer { fake.stop() }
        let client = try FakeAppStoreClient.make(fake)
        let revoked = try client.getTransactionHistory(transactionId: "1000000001", request: TransactionHistoryRequest(revoked: true))
        #expect(try (revoked.value.signedTransactions ?? []).map { try FakeAppStoreClient.transaction($0).transactionId } == ["1000000010"])
        let family = try client.getTransactionHistory(transactionId: "1000000001",
                                                      request: TransactionHistoryRequest(inAppOwnershipType: "FAMILY_SHARED"))
        #expect(try (family.value.signedTransactions ?? []).map { try FakeAppStoreClient.transaction($0).productId } == ["com.example.lifetime"])
        let window = try client.getTransactionHistory(transactionId: "1000000001", request: TransactionHistoryRequest(
            startDate: 1_767_225_600_000 + 2_592_000_000, endDate: 1_767_225_600_000 + 3 * 2_592_000_000,
            productIds: ["com.example.pro.monthly"], subscriptionGroupIdentifiers: ["21000001"]))
        #expect(try (window.value.signedTransactions ?? []).map { try FakeAppStoreClient.transaction($0).transactionId } == ["1000000002", "1000000003"])
        let bad = Self.apiError {
            _ = try client.getTransactionHistory(transactionId: "1000000001", request: TransactionHistoryRequest(sort: "SIDEWAYS"))
        }
        #expect(bad?.code == "InvalidSortError")
        #expect(bad?.isRetryable == false)
    }

    @Test func refundAndNotificationHistoriesPageToTheEnd() throws {
        let fake = try FakeAppStore.start()
        defer { fake.stop() }
        let client = try FakeAppStoreClient.make(fake)
        let refunds = try client.getRefundHistory(transactionId: "1000000003")
        #expect(refunds.value.hasMore == false)
        #expect(try (refunds.value.signedTransactions ?? []).map { try FakeAppStoreClient.transaction($0).revocationReason } == [.refundedForOtherReason])

        let window = NotificationHistoryRequest(startDate: 1_767_225_600_000, endDate: 1_767_225_600_000 + 30 * 86_400_000)
        var token: String?
        var types: [String] = []
        var pages = 0
        repeat {
            let page = try client.getNotificationHistory(paginationToken: token, request: window)
            pages += 1
            for item in page.value.notificationHistory ?? [] {
                let verified = try FakeAppStoreClient.verifier.verify(item.signedPayload ?? "", as: .notification, now: Date())
                let payload = try verified.decode(ResponseBodyV2DecodedPayload.self)
                types.append(payload.rawNotificationType ?? "")
            }
            token = page.value.hasMore == true ? page.value.paginationToken : nil
        } while token != nil && pages < 10
        #expect(pages == 3)
        #expect(types == ["SUBSCRIBED", "DID_RENEW", "DID_RENEW", "REFUND", "DID_RENEW"])
        let queries = try fake.requests().filter { $0["path"] as? String == "/inApps/v1/notifications/history" }
            .map { ($0["query"] as? [String: [String]])?["paginationToken"] != nil }
        #expect(queries == [false, true, true])

        var failures = window
        failures.onlyFailures = true
        let failed = try client.getNotificationHistory(request: failures)
        #expect(failed.value.notificationHistory?.count == 2)
        #expect(failed.value.notificationHistory?.first?.sendAttempts?.first?.sendAttemptResult == .timedOut)
        var byTransaction = window
        byTransaction.transactionId = "1000000010"
        #expect(try client.getNotificationHistory(request: byTransaction).value.notificationHistory?.count == 1)
        let missing = Self.apiError { _ = try client.getNotificationHistory(request: NotificationHistoryRequest(endDate: 5)) }
        #expect(missing?.code == "InvalidStartDateError")
    }

    @Test func extensionsConsumptionAndAccountTokensChangeWhatTheServerKnows() throws {
        let fake = try FakeAppStore.start()
        defer { fake.stop() }
        let client = try FakeAppStoreClient.make(fake)

        let extended = try client.extendSubscriptionRenewalDate(
            originalTransactionId: "1000000001",
            request: ExtendRenewalDateRequest(extendByDays: 7, extendReasonCode: 3, requestIdentifier: "case-42"))
        #expect(extended.value.success == true)
        #expect(extended.value.originalTransactionId == "1000000001")
        let latest = try FakeAppStoreClient.transaction(client.getTransactionInfo(transactionId: "1000000005").value.signedTransactionInfo)
        #expect(latest.expiresDate == extended.value.effectiveDate)
        let tooLong = Self.apiError {
            _ = try client.extendSubscriptionRenewalDate(originalTransactionId: "1000000001",
                                                         request: ExtendRenewalDateRequest(extendByDays: 91, extendReasonCode: 1, requestIdentifier: "x"))
        }
        #expect(tooLong?.code == "InvalidExtendByDaysError")

        let requestIdentifier = "8a3c1c37-2f1e-4f0e-9d55-3c8d0b0f2a11"
        let mass = try client.extendRenewalDateForAllActiveSubscribers(request: MassExtendRenewalDateRequest(
            extendByDays: 3, extendReasonCode: 3, requestIdentifier: requestIdentifier, storefrontCountryCodes: ["USA", "FRA"],
            productId: "com.example.pro.monthly"))
        #expect(mass.value.requestIdentifier == requestIdentifier)
        let status = try client.getStatusOfSubscriptionRenewalDateExtensions(requestIdentifier: requestIdentifier, productId: "com.example.pro.monthly")
        #expect(status.value.complete == true)
        #expect(status.value.succeededCount == 5)
        let unknown = Self.apiError {
            _ = try client.getStatusOfSubscriptionRenewalDateExtensions(requestIdentifier: "0d7e0000-0000-4000-8000-000000000000", productId: "p")
        }
        #expect(unknown?.code == "StatusRequestNotFoundError")

        _ = try client.sendConsumptionInformation(transactionId: "1000000010", request: ConsumptionRequest(
            customerConsented: true, deliveryStatus: "DELIVERED", sampleContentProvided: false,
            consumptionPercentage: 50000, refundPreference: "GRANT_PRORATED"))
        let sent = try #require(fake.requests().last)
        #expect(sent["method"] as? String == "PUT")
        #expect(sent["path"] as? String == "/inApps/v2/transactions/consumption/1000000010")
        #expect((sent["body"] as? [String: Any])?["refundPreference"] as? String == "GRANT_PRORATED")
        #expect(sent["status"] as? Int == 202)
        let undelivered = Self.apiError {
            _ = try client.sendConsumptionInformation(transactionId: "1000000010", request: ConsumptionRequest(
                customerConsented: true, deliveryStatus: "LOST_IN_THE_POST", sampleContentProvided: false))
        }
        #expect(undelivered?.code == "InvalidDeliveryStatusError")

        let token = "3f2b1a00-1111-4222-8333-444455556666"
        _ = try client.setAppAccountToken(originalTransactionId: "1000000001", request: UpdateAppAccountTokenRequest(appAccountToken: token))
        let retagged = try FakeAppStoreClient.transaction(client.getTransactionInfo(transactionId: "1000000004").value.signedTransactionInfo)
        #expect(retagged.appAccountToken == token)
        let notUUID = Self.apiError {
            _ = try client.setAppAccountToken(originalTransactionId: "1000000001", request: UpdateAppAccountTokenRequest(appAccountToken: "customer-7"))
        }
        #expect(notUUID?.code == "InvalidAppAccountTokenUUIDError")
        let notOriginal = Self.apiError {
            _ = try client.setAppAccountToken(originalTransactionId: "1000000003", request: UpdateAppAccountTokenRequest(appAccountToken: token))
        }
        #expect(notOriginal?.code == "TransactionIdIsNotOriginalTransactionIdError")
    }

    @Test func testNotificationsAreRequestedAndReported() throws {
        let fake = try FakeAppStore.start()
        defer { fake.stop() }
        let client = try FakeAppStoreClient.make(fake)
        let token = try #require(client.requestTestNotification(environment: .sandbox).value.testNotificationToken)
        let status = try client.getTestNotificationStatus(testNotificationToken: token, environment: .sandbox)
        #expect(status.value.sendAttempts?.map(\.rawSendAttemptResult) == ["SSL_ISSUE", "UNSUCCESSFUL_HTTP_RESPONSE_CODE"])
        let payload = try FakeAppStoreClient.verifier.verify(status.value.signedPayload ?? "", as: .notification, now: Date())
            .decode(ResponseBodyV2DecodedPayload.self)
        #expect(payload.rawNotificationType == "TEST")
        let wrongEnvironment = Self.apiError { _ = try client.getTestNotificationStatus(testNotificationToken: token, environment: .production) }
        #expect(wrongEnvironment?.code == "TestNotificationNotFoundError")
    }

    // MARK: Sandbox fallback

    @Test func aTransactionProductionDoesNotKnowIsAskedOfTheSandbox() throws {
        let fake = try FakeAppStore.start()
        defer { fake.stop() }
        let client = try FakeAppStoreClient.make(fake)
        let answer = try client.getTransactionHistory(transactionId: "2000000001", environment: .production, sandboxFallback: true)
        #expect(answer.environment == .sandbox)
        #expect(answer.attempts == 2)
        #expect(try (answer.value.signedTransactions ?? []).map { try FakeAppStoreClient.transaction($0).environment } == [.sandbox])
        let environments = try fake.requests().map { "\($0["environment"] ?? "")" }
        #expect(environments == ["Production", "Sandbox"])

        let refused = Self.apiError { _ = try client.getTransactionInfo(transactionId: "2000000001", sandboxFallback: false) }
        #expect(refused?.code == "TransactionIdNotFoundError")
        #expect(try fake.requests().count == 3)
    }

    // MARK: Retries

    @Test func rateLimitWaitsWhatRetryAfterSays() throws {
        let fake = try FakeAppStore.start()
        defer { fake.stop() }
        let timing = RecordedWaits()
        let gate = GateLog()
        let client = try FakeAppStoreClient.make(fake, timing: timing, gate: gate)
        try fake.queueFaults([["kind": "status", "status": 429, "retryAfter": 2], ["kind": "status", "status": 429, "retryAfter": 1]])
        let answer = try client.getTransactionInfo(transactionId: "1000000001")
        #expect(answer.attempts == 3)
        #expect(timing.waits == [.seconds(2), .seconds(1)])
        #expect(gate.retryAfters == [.seconds(2), .seconds(1)])
        #expect(gate.attemptNumbers == [1, 2, 3])
        #expect(try fake.requests().map { $0["status"] as? Int } == [429, 429, 200])
    }

    @Test func serverErrorsRetryWithBackoffWithinItsBounds() throws {
        let fake = try FakeAppStore.start()
        defer { fake.stop() }
        let timing = RecordedWaits(unit: 0.999)
        let policy = AppStoreAPIRetryPolicy(maximumAttempts: 4, initialBackoff: .milliseconds(400), maximumBackoff: .seconds(1))
        let client = try FakeAppStoreClient.make(fake, timing: timing, policy: policy)
        try fake.queueFaults([["kind": "status", "status": 500], ["kind": "status", "status": 503],
                              ["kind": "status", "status": 503, "errorCode": 5000001]])
        let answer = try client.getRefundHistory(transactionId: "1000000001")
        #expect(answer.attempts == 4)
        let ceilings: [Duration] = [.milliseconds(400), .milliseconds(800), .seconds(1)]
        #expect(timing.waits.count == 3)
        for (wait, ceiling) in zip(timing.waits, ceilings) {
            #expect(wait > ceiling * 0.99 && wait <= ceiling, "wait \(wait) outside (0, \(ceiling)]")
        }
        #expect(try fake.requests().count == 4)
    }

    @Test func retriesStopAtTheAttemptLimitWithTheLastError() throws {
        let fake = try FakeAppStore.start()
        defer { fake.stop() }
        let timing = RecordedWaits()
        let client = try FakeAppStoreClient.make(fake, timing: timing, policy: AppStoreAPIRetryPolicy(maximumAttempts: 3))
        try fake.queueFaults(Array(repeating: ["kind": "status", "status": 503, "errorCode": 5000001], count: 5))
        let error = Self.apiError { _ = try client.getTransactionInfo(transactionId: "1000000001") }
        #expect(error?.code == "GeneralInternalRetryableError")
        #expect(error?.isRetryable == true)
        #expect(error?.attempts == 3)
        #expect(timing.waits == [.milliseconds(250), .milliseconds(500)])
        #expect(try fake.requests().count == 3)
    }

    @Test func aHangTimesOutAndADroppedConnectionIsRetried() throws {
        let fake = try FakeAppStore.start()
        defer { fake.stop() }
        let timing = RecordedWaits()
        let policy = AppStoreAPIRetryPolicy(maximumAttempts: 3, attemptTimeout: .seconds(1))
        let client = try FakeAppStoreClient.make(fake, timing: timing, policy: policy)
        try fake.queueFaults([["kind": "hang", "seconds": 4], ["kind": "drop"]])
        let answer = try client.getTransactionInfo(transactionId: "1000000002")
        #expect(answer.attempts == 3)
        #expect(timing.waits.count == 2)
        #expect(try fake.requests().map { $0["fault"] as? String } == ["hang", "drop", nil])

        // Without retries left, the transport's own error surfaces, retryable.
        let once = try FakeAppStoreClient.make(fake, policy: AppStoreAPIRetryPolicy(maximumAttempts: 1))
        try fake.queueFaults([["kind": "drop"]])
        let error = Self.apiError { _ = try once.getTransactionInfo(transactionId: "1000000002") }
        #expect(error?.kind == .transport)
        #expect(error?.isRetryable == true)
    }

    @Test func aNonRetryableRefusalIsAskedOnce() throws {
        let fake = try FakeAppStore.start()
        defer { fake.stop() }
        let timing = RecordedWaits()
        let client = try FakeAppStoreClient.make(fake, timing: timing)
        let notFound = Self.apiError { _ = try client.getTransactionInfo(transactionId: "1000009999") }
        #expect(notFound?.code == "TransactionIdNotFoundError")
        #expect(notFound?.httpStatus == 404)
        let invalid = Self.apiError { _ = try client.getTransactionInfo(transactionId: "not-a-number") }
        #expect(invalid?.code == "InvalidTransactionIdError")
        #expect(timing.waits.isEmpty)
        #expect(try fake.requests().count == 2)
    }

    @Test func aRetryAfterBeyondTheDeadlineEndsTheCall() throws {
        let fake = try FakeAppStore.start()
        defer { fake.stop() }
        let timing = RecordedWaits()
        let client = try FakeAppStoreClient.make(fake, timing: timing, policy: AppStoreAPIRetryPolicy(deadline: .seconds(3)))
        try fake.queueFaults([["kind": "status", "status": 429, "retryAfter": 10]])
        let error = Self.apiError { _ = try client.getTransactionInfo(transactionId: "1000000001") }
        #expect(error?.code == "RateLimitExceededError")
        #expect(error?.retryAfter == .seconds(10))
        #expect(timing.waits.isEmpty)
        #expect(try fake.requests().count == 1)
    }

    // MARK: Tokens

    @Test func aTokenAppleWouldRefuseIsUnauthorizedAndNotRetried() throws {
        let fake = try FakeAppStore.start()
        defer { fake.stop() }
        let cases: [(AppStoreAPICredentials, RecordedWaits, String)] = [
            (FakeAppStoreClient.credentials(key: try ECPrivateKey.generateP256()), RecordedWaits(), "bad signature"),
            (FakeAppStoreClient.credentials(bundleId: "com.example.other"), RecordedWaits(), "wrong bid"),
            (FakeAppStoreClient.credentials(keyId: "OTHERKEY99"), RecordedWaits(), "unknown kid"),
            (FakeAppStoreClient.credentials(issuerId: "00000000-0000-0000-0000-000000000000"), RecordedWaits(), "wrong iss"),
            (FakeAppStoreClient.credentials(), RecordedWaits(wallOffset: -7200), "expired"),
        ]
        for (credentials, time, reason) in cases {
            try fake.clearLog()
            let client = try FakeAppStoreClient.make(fake, credentials: credentials, timing: time)
            let error = Self.apiError { _ = try client.getTransactionInfo(transactionId: "1000000001") }
            #expect(error?.kind == .unauthorized, "\(reason)")
            #expect(error?.code == "api_token_refused")
            #expect(error?.isRetryable == false)
            let log = try fake.requests()
            #expect(log.count == 1)
            #expect(log.first?["auth"] as? String == reason)
        }

        // Claims the client never makes, signed with the right key: the fake still refuses them.
        try fake.clearLog()
        let now = Int64(Date().timeIntervalSince1970)
        let signer = JWSSigner(key: FakeAppStoreClient.key, header: JOSEHeader(alg: "ES256", kid: FakeAppStore.keyId, typ: "JWT"))
        let wrongAudience = AppStoreAPIToken.Claims(iss: FakeAppStore.issuerId, iat: now, exp: now + 300, aud: "appstoreconnect-v2", bid: FakeAppStore.bundleId)
        let tooLong = AppStoreAPIToken.Claims(iss: FakeAppStore.issuerId, iat: now, exp: now + 3601, aud: "appstoreconnect-v1", bid: FakeAppStore.bundleId)
        let http = try CurlHTTPClient()
        for claims in [wrongAudience, tooLong] {
            let response = try http.send(HTTPRequest(method: "GET", url: fake.baseURL + "/inApps/v1/transactions/1000000001",
                                                     headers: [("Authorization", "Bearer " + (try signer.sign(claims)))]))
            #expect(response.status == 401)
        }
        #expect(try fake.requests().map { $0["auth"] as? String } == ["wrong aud", "exp more than 60 minutes after iat"])
    }
}

final class GateLog: AppStoreAPIRequestGate, @unchecked Sendable {
    private(set) var attemptNumbers: [Int] = []
    private(set) var retryAfters: [Duration] = []
    func willSend(_ attempt: AppStoreAPIAttempt) throws(AppStoreAPIError) { attemptNumbers.append(attempt.number) }
    func didReceiveRetryAfter(_ delay: Duration, for attempt: AppStoreAPIAttempt) { retryAfters.append(delay) }
}
