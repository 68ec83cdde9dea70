import FoundationEssentials
@testable import FunctionRuntime
import StorekeeperCore
import Testing

@Suite("JSON-lines logger")
struct LoggerTests {
    /// Collects emitted lines; a class so the logger's closure can append to it.
    final class Lines {
        var all: [String] = []
    }

    private func logger(_ lines: Lines, level: LogLevel = .info) -> Logger {
        Logger(
            function: "fn-name",
            clock: SystemTime(pinnedAt: Date(timeIntervalSince1970: 1_714_564_800.123)),
            minimumLevel: level,
            emit: { lines.all.append(String(decoding: $0, as: UTF8.self)) }
        )
    }

    @Test func writesOneJSONObjectALineWithTheFixedFieldsFirst() throws {
        let lines = Lines()
        let userId = "u-1"
        logger(lines).info("stored", ["userId": userId, "count": 3, "ok": true, "ratio": 0.5, "ts": "caller's"])
        try #require(lines.all.count == 1)
        let line = lines.all[0]
        #expect(line.hasPrefix(#"{"ts":"2024-05-01T12:00:00.123Z","level":"info","fn":"fn-name","event":"stored","#))
        #expect(line.hasSuffix("}\n"))
        let entry = try Run.json(line)
        #expect(entry["userId"]?.stringValue == "u-1")
        #expect(entry["count"] == .number(3))
        #expect(entry["ok"] == .bool(true))
        #expect(entry["ratio"] == .number(0.5))
        #expect(entry["_ts"]?.stringValue == "caller's")
    }

    @Test func redactsEveryStringValueAndSensitiveFields() throws {
        let lines = Lines()
        logger(lines).warning("verify", ["jws": "anything", "detail": "bad \(TestTokens.jws)", "header": TestTokens.bearer])
        let line = lines.all.joined()
        #expect(!line.contains(TestTokens.jws))
        #expect(!line.contains(TestTokens.admin))
        let entry = try Run.json(line)
        #expect(entry["jws"]?.stringValue == LogRedaction.redacted)
        #expect(entry["detail"]?.stringValue == "bad \(LogRedaction.redactedJWS)")
        #expect(entry["header"]?.stringValue == "Bearer [redacted]")
    }

    @Test func escapesControlCharactersAndKeepsNonFiniteNumbersValid() throws {
        let lines = Lines()
        logger(lines).error("odd", ["text": "a\"b\\c\nd\u{1}", "nan": Double.nan])
        let entry = try Run.json(lines.all.joined())
        #expect(entry["text"]?.stringValue == "a\"b\\c\nd\u{1}")
        #expect(entry["nan"]?.stringValue == "nan")
    }

    @Test func dropsLinesBelowTheMinimumLevel() throws {
        let lines = Lines()
        let log = logger(lines, level: .warning)
        log.debug("a")
        log.info("b")
        log.warning("c")
        log.error("d")
        #expect(lines.all.count == 2)
        #expect(LogLevel(name: "WARN") == .warning)
        #expect(LogLevel(name: "loud") == nil)
    }

    @Test func theRunnerHonoursTheLogLevelVariable() throws {
        var environment = Run.echoEnvironment
        environment[RuntimeVariable.logLevel] = "error"
        let quiet = FunctionRunner.run(EchoHandler.self, environment: environment, stdin: Array(#"{"name": "a"}"#.utf8))
        #expect(quiet.logLines.isEmpty)
    }

    @Test func timestampsAreUTCWithMilliseconds() throws {
        #expect(LogTimestamp.format(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
        #expect(LogTimestamp.format(Date(timeIntervalSince1970: -0.5)) == "1969-12-31T23:59:59.500Z")
        #expect(LogTimestamp.format(Date(timeIntervalSince1970: 951_782_400)) == "2000-02-29T00:00:00.000Z")
        #expect(LogTimestamp.format(Date(timeIntervalSince1970: 4_102_444_799.999)) == "2099-12-31T23:59:59.999Z")
    }
}
