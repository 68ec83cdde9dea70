import Foundation
import FunctionRuntime
import StorekeeperCore
import Testing

/// The README's table of wire codes against the code: every code a function can answer is a
/// row with its disposition's status and exit code, and no row names a code nothing emits.
@Suite struct ErrorTableTests {
    struct Answer: Equatable, CustomStringConvertible {
        let status: Int
        let exit: Int32
        var description: String { "\(status)/\(exit)" }
    }

    /// Codes made at run time from what Apple answered; their row states the usual answer.
    static let patterns: [String: ErrorDisposition] = ["http_<status>": .badInput, "apple_error_<errorCode>": .badInput]

    @Test func everyAnsweredCodeIsInTheReadmeWithItsStatusAndExit() throws {
        let table = try Self.readmeTable()
        let expected = Self.codeTable()
        for (code, answer) in expected.sorted(by: { $0.key < $1.key }) {
            #expect(table.answered[code] == answer, "\(code): the code answers \(answer), the README says \(table.answered[code].map(\.description) ?? "nothing")")
        }
        for code in Set(table.answered.keys).subtracting(expected.keys).sorted() {
            Issue.record("the README lists \(code), which no code emits")
        }
        #expect(table.reported == Set(ReportFailureCode.allCases.map(\.rawValue)))
    }

    /// The vocabularies that reach an answer. StoreErrorKind, EntitlementErrorKind and
    /// JWKErrorKind are log-only: a store failure is answered `store_unavailable` or
    /// `configuration_error`, the other two are wrapped or answered `internal_error`.
    static func codeTable() -> [String: Answer] {
        var rows: [String: Answer] = [:]
        func add(_ code: String, _ disposition: ErrorDisposition) {
            let answer = Answer(status: disposition.httpStatus, exit: disposition.exitCode)
            #expect(rows[code] == nil || rows[code] == answer, "\(code) is answered two ways")
            rows[code] = answer
        }
        func add<Kind: ErrorKind>(_: Kind.Type) {
            for kind in Kind.allCases { add(kind.rawValue, kind.disposition) }
        }
        add(FunctionErrorCode.self)
        add(VerificationErrorKind.self)
        add(VerifyReceiptErrorKind.self)
        add(AppStoreAPIError.OwnCode.self)
        add(HTTPErrorKind.self)
        add(AppleIDErrorKind.self)
        add(IdentityTokenErrorKind.self)
        add(SignInErrorKind.self)
        add(TransactionIngest.MismatchErrorKind.self)
        add(SupportErrorKind.self)
        add(OfferErrorKind.self)
        add(ConsumptionErrorKind.self)
        add(BackupErrorKind.self)
        add(CopyErrorKind.self)
        for entry in AppStoreAPIErrorCode.all { add(entry.name, entry.disposition) }
        for (code, disposition) in patterns { add(code, disposition) }
        return rows
    }

    /// Rows between the README's `error-table` markers: `| `code` | status | exit | meaning |`;
    /// a status of — marks a code that only appears inside a report.
    static func readmeTable() throws -> (answered: [String: Answer], reported: Set<String>) {
        let readme = try String(contentsOf: FunctionBinary.repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let start = try #require(readme.range(of: "<!-- error-table:start -->"))
        let end = try #require(readme.range(of: "<!-- error-table:end -->"))
        var answered: [String: Answer] = [:]
        var reported: Set<String> = []
        for line in readme[start.upperBound..<end.lowerBound].split(separator: "\n") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 3, cells[0].hasPrefix("`"), let code = cells[0].split(separator: "`").first.map(String.init) else { continue }
            if cells[1] == "—" {
                reported.insert(code)
                continue
            }
            #expect(answered[code] == nil, "the README lists \(code) twice")
            answered[code] = Answer(status: Int(cells[1]) ?? -1, exit: Int32(cells[2]) ?? -1)
        }
        return (answered, reported)
    }
}
