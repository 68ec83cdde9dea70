@testable import HTTPTransport
import Testing

/// The header and body handling behind libcurl's callbacks, fed directly.
@Suite struct ResponseCollectorTests {
    private func feed(_ collector: ResponseCollector, _ lines: [String]) {
        for line in lines {
            Array(line.utf8).withUnsafeBytes { collector.receiveHeaderLine($0) }
        }
    }

    private func body(_ collector: ResponseCollector, _ count: Int) -> Bool {
        [UInt8](repeating: 7, count: count).withUnsafeBytes { collector.receiveBody($0) }
    }

    @Test func onlyTheLastResponsesHeadersRemain() {
        let collector = ResponseCollector(maximumBodyBytes: 100)
        feed(collector, ["HTTP/1.1 100 Continue\r\n", "\r\n",
                         "HTTP/1.1 302 Found\r\n", "Location: /next\r\n", "Content-Length: 5000\r\n", "\r\n",
                         "HTTP/2 200 \r\n", "Content-Type: text/plain\r\n", "X-A:  spaced value \t\r\n",
                         "X-Folded: first\r\n", " \t second\r\n", "not a header\r\n", "\r\n"])
        #expect(collector.headers.map(\.0) == ["content-type", "x-a", "x-folded"])
        #expect(collector.headers.map(\.1) == ["text/plain", "spaced value", "first second"])
        // The redirect's Content-Length does not count against the final body.
        #expect(body(collector, 50))
        #expect(collector.body.count == 50)
    }

    @Test func declaredLengthOverTheCapIsRefusedBeforeAnyBody() {
        let collector = ResponseCollector(maximumBodyBytes: 1000)
        feed(collector, ["HTTP/1.1 200 OK\r\n", "Content-Length: 1001\r\n", "\r\n"])
        #expect(!body(collector, 1))
        #expect(collector.exceededLimit)
        #expect(collector.body.isEmpty)
    }

    @Test func undeclaredBodyIsCutAtTheCap() {
        let collector = ResponseCollector(maximumBodyBytes: 10)
        feed(collector, ["HTTP/1.1 200 OK\r\n", "Transfer-Encoding: chunked\r\n", "\r\n"])
        #expect(body(collector, 6))
        #expect(body(collector, 4))
        #expect(!collector.exceededLimit)
        #expect(!body(collector, 1))
        #expect(collector.exceededLimit)
        #expect(collector.body.count == 10)
    }

    @Test func nonUTF8HeaderBytesDoNotBreakParsing() {
        let collector = ResponseCollector(maximumBodyBytes: 10)
        let line: [UInt8] = Array("X-Latin: caf".utf8) + [0xE9] + Array("\r\n".utf8)
        line.withUnsafeBytes { collector.receiveHeaderLine($0) }
        #expect(collector.headers.count == 1)
        #expect(collector.headers.first?.0 == "x-latin")
    }
}

@Suite struct DurationMillisecondsTests {
    @Test func roundsUpAndNeverReachesZero() {
        #expect(Duration.seconds(5).curlMilliseconds == 5000)
        #expect(Duration.milliseconds(250).curlMilliseconds == 250)
        #expect(Duration.microseconds(1500).curlMilliseconds == 2)
        #expect(Duration.nanoseconds(1).curlMilliseconds == 1)
        // libcurl reads 0 as "no timeout"; these must stay bounded.
        #expect(Duration.zero.curlMilliseconds == 1)
        #expect(Duration.seconds(-3).curlMilliseconds == 1)
        #expect(Duration.seconds(Int64.max).curlMilliseconds > 0)
    }
}
