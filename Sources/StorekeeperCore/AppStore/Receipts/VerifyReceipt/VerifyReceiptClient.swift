import FoundationEssentials

/// The legacy verifyReceipt endpoint (deprecated by Apple, still answering), kept for the
/// dual track of a migration: production first, then the sandbox when production answers
/// 21007, as Apple asks.
///
/// https://developer.apple.com/documentation/appstorereceipts/verifyreceipt
public final class VerifyReceiptClient {
    public struct Endpoints: Sendable, Equatable {
        public var production: String
        public var sandbox: String

        public init(production: String, sandbox: String) {
            self.production = production
            self.sandbox = sandbox
        }

        public static let apple = Endpoints(
            production: "https://buy.itunes.apple.com/verifyReceipt",
            sandbox: "https://sandbox.itunes.apple.com/verifyReceipt")

        /// Both endpoints under one base URL (a fake server in tests): `<base>/buy/verifyReceipt`
        /// and `<base>/sandbox/verifyReceipt`.
        public static func under(_ base: String) -> Endpoints {
            let trimmed = base.hasSuffix("/") ? String(base.dropLast()) : base
            return Endpoints(production: trimmed + "/buy/verifyReceipt", sandbox: trimmed + "/sandbox/verifyReceipt")
        }
    }

    /// The answer and which endpoint gave it.
    public struct Answer: Sendable {
        public let response: VerifyReceiptResponse
        /// True when production said 21007 and the sandbox answered.
        public let redirectedToSandbox: Bool
    }

    private let http: () throws -> any HTTPClient
    private let endpoints: Endpoints
    private let sharedSecret: String

    /// `sharedSecret` is the app's shared secret (`APPSTORE_SHARED_SECRET`); it is sent as
    /// `password` and never logged.
    public init(http: @escaping () throws -> any HTTPClient, endpoints: Endpoints = .apple, sharedSecret: String) {
        self.http = http
        self.endpoints = endpoints
        self.sharedSecret = sharedSecret
    }

    /// Sends the base64 receipt; `excludeOldTransactions` keeps only each subscription's
    /// latest transaction in `latest_receipt_info`.
    public func verify(receiptData: String, excludeOldTransactions: Bool = true) throws(VerifyReceiptError) -> Answer {
        let body = try requestBody(receiptData: receiptData, excludeOldTransactions: excludeOldTransactions)
        let production = try send(body, to: endpoints.production)
        if production.status == .sandboxReceiptSentToProduction {
            return try answer(send(body, to: endpoints.sandbox), redirected: true)
        }
        return try answer(production, redirected: false)
    }

    private func answer(_ response: VerifyReceiptResponse, redirected: Bool) throws(VerifyReceiptError) -> Answer {
        let status = response.status
        guard status.carriesReceipt else {
            if status.isTemporary || response.isRetryable == true {
                throw VerifyReceiptError(.unavailable, "verifyReceipt answered status \(status)", status: status)
            }
            throw VerifyReceiptError(.rejected, "verifyReceipt answered status \(status)", status: status)
        }
        return Answer(response: response, redirectedToSandbox: redirected)
    }

    private func requestBody(receiptData: String, excludeOldTransactions: Bool) throws(VerifyReceiptError) -> [UInt8] {
        struct Body: Encodable {
            let receiptData: String
            let password: String
            let excludeOldTransactions: Bool
            enum CodingKeys: String, CodingKey {
                case receiptData = "receipt-data", password, excludeOldTransactions = "exclude-old-transactions"
            }
        }
        do {
            return Array(try JSONEncoder().encode(Body(receiptData: receiptData, password: sharedSecret, excludeOldTransactions: excludeOldTransactions)))
        } catch {
            throw VerifyReceiptError(.invalidResponse, "the request could not be encoded")
        }
    }

    private func send(_ body: [UInt8], to url: String) throws(VerifyReceiptError) -> VerifyReceiptResponse {
        let response: HTTPResponse
        do {
            let client = try http()
            response = try client.send(HTTPRequest(
                method: "POST", url: url, headers: [("Content-Type", "application/json")], body: body,
                timeout: .seconds(30), maximumResponseBytes: 32 << 20))
        } catch let error as HTTPError {
            throw VerifyReceiptError(.unavailable, "verifyReceipt at \(url) could not be reached: \(error.reason)")
        } catch {
            throw VerifyReceiptError(.unavailable, "verifyReceipt at \(url): \(error)")
        }
        guard response.status == 200 else {
            throw VerifyReceiptError(response.status >= 500 || response.status == 429 ? .unavailable : .invalidResponse,
                                     "verifyReceipt at \(url) answered HTTP \(response.status)")
        }
        do {
            return try JSONDecoder().decode(VerifyReceiptResponse.self, from: Data(response.body))
        } catch {
            throw VerifyReceiptError(.invalidResponse, "verifyReceipt at \(url) answered something that is not a verifyReceipt body")
        }
    }
}
