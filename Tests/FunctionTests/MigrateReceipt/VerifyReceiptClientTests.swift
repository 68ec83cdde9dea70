import Foundation
import HTTPTransport
import StorekeeperCore
import Testing
import TestSupport

/// The verifyReceipt client against the fake endpoint (a real HTTP server on loopback that
/// verifies what it is sent), over the real libcurl client.
@Suite("verifyReceipt client", .enabled(if: FakeVerifyReceiptServer.python != nil, "python3 not installed"))
struct VerifyReceiptClientTests {
    static let receipts = FunctionBinary.repositoryRoot.appendingPathComponent("Tests/Fixtures/receipts")
    static let roots = receipts.appendingPathComponent("pki/receipt-root.pem").path
    static let secret = "0123456789abcdef0123456789abcdef"

    static func receiptData(_ name: String) throws -> String {
        try String(contentsOf: receipts.appendingPathComponent("\(name).b64"), encoding: .utf8)
    }

    static func client(_ server: FakeVerifyReceiptServer, secret: String = secret) throws -> VerifyReceiptClient {
        let http = try CurlHTTPClient()
        return VerifyReceiptClient(http: { http }, endpoints: .under(server.baseURL), sharedSecret: secret)
    }

    @Test func aProductionReceiptIsAnsweredByProduction() throws {
        let server = try FakeVerifyReceiptServer(secret: Self.secret, rootsPath: Self.roots)
        defer { server.stop() }
        let answer = try Self.client(server).verify(receiptData: try Self.receiptData("receipt-single"))
        #expect(!answer.redirectedToSandbox)
        #expect(answer.response.environment == "Production")
        #expect(answer.response.latestReceiptInfo?.map(\.transactionId) == ["1000000000000001"])
        #expect(server.requests().map { $0["path"] as? String } == ["/buy/verifyReceipt"])
        #expect(server.requests().first?["excludeOldTransactions"] as? Bool == true)
    }

    @Test func aSandboxReceiptIsRedirectedOn21007() throws {
        let server = try FakeVerifyReceiptServer(secret: Self.secret, rootsPath: Self.roots, renewals: [
            "1000000000000001": ["is_in_billing_retry_period": "1", "expiration_intent": "2"],
        ])
        defer { server.stop() }
        let answer = try Self.client(server).verify(receiptData: try Self.receiptData("receipt-several"))
        #expect(answer.redirectedToSandbox)
        #expect(answer.response.environment == "Sandbox")
        let requests = server.requests()
        #expect(requests.map { $0["path"] as? String } == ["/buy/verifyReceipt", "/sandbox/verifyReceipt"])
        #expect(requests.map { $0["status"] as? Int } == [21007, 0])
        // exclude-old-transactions: one latest transaction per subscription.
        #expect(answer.response.latestReceiptInfo?.map(\.transactionId) == ["1000000000000002"])
        // Expired 2026-06-01T10:00Z; at 11:00 Apple is still retrying the charge.
        let statuses = LegacySubscriptionStatus.infer(from: answer.response, now: Date(timeIntervalSince1970: 1_780_311_600))
        #expect(statuses.map(\.state) == [.billingRetry])
        #expect(statuses.first?.expirationIntent == 2)
    }

    @Test func aWrongSharedSecretIs21004() throws {
        let server = try FakeVerifyReceiptServer(secret: Self.secret, rootsPath: Self.roots)
        defer { server.stop() }
        let error = #expect(throws: VerifyReceiptError.self) {
            try Self.client(server, secret: "wrong").verify(receiptData: try Self.receiptData("receipt-single"))
        }
        #expect(error?.kind == .rejected)
        #expect(error?.status == .sharedSecretMismatch)
        #expect(error?.isRetryable == false)
    }

    @Test func aTamperedReceiptIs21003() throws {
        let server = try FakeVerifyReceiptServer(secret: Self.secret, rootsPath: Self.roots)
        defer { server.stop() }
        let error = #expect(throws: VerifyReceiptError.self) {
            try Self.client(server).verify(receiptData: try Self.receiptData("receipt-tampered"))
        }
        #expect(error?.status == .receiptCouldNotBeAuthenticated)
    }

    @Test func anUnreachableEndpointIsRetryable() throws {
        let server = try FakeVerifyReceiptServer(secret: Self.secret, rootsPath: Self.roots)
        let base = server.baseURL
        server.stop()
        let http = try CurlHTTPClient()
        let client = VerifyReceiptClient(http: { http }, endpoints: .under(base), sharedSecret: Self.secret)
        let error = #expect(throws: VerifyReceiptError.self) { try client.verify(receiptData: "AAAA") }
        #expect(error?.kind == .unavailable)
        #expect(error?.isRetryable == true)
    }
}
