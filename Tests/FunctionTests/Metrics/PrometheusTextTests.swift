import Foundation
import StorekeeperCore
import Testing
import TestSupport

/// The exposition writer against prometheus-client's parser: label values and help text that
/// need escaping come back as they were.
@Suite("Prometheus text: what prometheus-client's parser reads back")
struct PrometheusTextTests {
    @Test func labelValuesThatNeedEscapingRoundTrip() throws {
        let hostile = ["plain", "a \"quoted\" name", "back\\slash", "two\nlines", "crlf\r\nend", "expired→active", "{}=,"]
        var text = PrometheusText()
        text.family("storekeeper_test_total", .counter, help: "Help with a \\ backslash and a\nline feed.")
        for (index, value) in hostile.enumerated() {
            text.sample("storekeeper_test_total", ["kind": value, "n": String(index)], Int64(index + 1))
        }
        text.family("storekeeper_test_ratio", .gauge, help: "A fraction.")
        text.sample("storekeeper_test_ratio", ["app": "a"], 0.125)
        text.sample("storekeeper_test_ratio", ["app": "b"], Double.infinity)
        let families = try PrometheusParser.parse(text.text)
        #expect(families.map(\.name) == ["storekeeper_test", "storekeeper_test_ratio"])
        #expect(families.map(\.type) == ["counter", "gauge"])
        #expect(families.first?.help == "Help with a \\ backslash and a\nline feed.")
        for (index, value) in hostile.enumerated() {
            #expect(families.value("storekeeper_test_total", ["kind": value]) == Double(index + 1), "\(value.debugDescription)")
        }
        #expect(families.value("storekeeper_test_ratio", ["app": "a"]) == 0.125)
        #expect(families.value("storekeeper_test_ratio", ["app": "b"]) == .infinity)
        #expect(!text.text.contains("two\nlines"), "a line feed in a value never ends the line")
    }
}
