import Foundation
import Testing
import TestSupport

/// `metrics` over the HTTP event door, as a gateway calls it: a read token is enough, the
/// answer is Prometheus text with its content type, a missing token is 401.
@Suite("metrics over HTTP: a read token, the text format's content type")
struct MetricsHTTPTests {
    static let reader = "prometheus-read-0123456789abcdef"

    static func get(bearer: String?) throws -> (status: Int, headers: [String: String], body: String) {
        var headers: [String: String] = [:]
        if let bearer { headers["authorization"] = "Bearer \(bearer)" }
        let event: [String: Any] = [
            "version": "2.0", "rawPath": "/metrics", "rawQueryString": "", "body": "", "headers": headers,
            "requestContext": ["http": ["method": "GET", "path": "/metrics"]], "isBase64Encoded": false,
        ]
        let store = FileManager.default.temporaryDirectory.appendingPathComponent("metrics-http-\(UUID().uuidString).db").path
        defer { try? FileManager.default.removeItem(atPath: store) }
        let result = try FunctionBinary(name: "metrics").run(
            stdin: try JSONSerialization.data(withJSONObject: event),
            environment: ["STORE_URL": "sqlite:" + store, "STOREKEEPER_TOKENS": "prometheus:read:\(reader)",
                          "STOREKEEPER_ADMIN_TOKEN": "metrics-admin-0123456789abcdef"])
        let answer = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any] ?? [:]
        var body = answer["body"] as? String ?? ""
        if answer["isBase64Encoded"] as? Bool == true { body = String(decoding: Data(base64Encoded: body) ?? Data(), as: UTF8.self) }
        let answered = (answer["headers"] as? [String: String] ?? [:]).reduce(into: [:]) { $0[$1.key.lowercased()] = $1.value }
        return (answer["statusCode"] as? Int ?? 0, answered, body)
    }

    @Test func aReadTokenScrapesPrometheusText() throws {
        let scrape = try Self.get(bearer: Self.reader)
        #expect(scrape.status == 200, "\(scrape.body)")
        #expect(scrape.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8")
        let families = try PrometheusParser.parse(scrape.body)
        #expect(families.value("storekeeper_notification_queue_jobs") == 0)
        #expect(try Self.get(bearer: nil).status == 401)
        #expect(try Self.get(bearer: "not-the-token-0123456789abcdef").status == 401)
    }
}
