import StorekeeperCore
import Testing

@Suite("Customer exports: CSV and line checks")
struct CustomerExportCSVTests {
    static func lines(_ text: String) throws -> [CustomerImportLine] {
        try CustomerExportCSV.lines(Array(text.utf8))
    }

    @Test func revenueCatColumnsInAnyOrderWithOthersBeside() throws {
        let lines = try Self.lines("store,Original_Transaction_Id, app_user_id ,bundle_id\nAPP_STORE,2000000001,u-1,com.example.app\n")
        #expect(lines == [CustomerImportLine(source: .file, line: 2, userId: "u-1", originalTransactionId: "2000000001",
                                             bundleId: "com.example.app")])
    }

    @Test func quotesCommasNewlinesAndDoubledQuotesInsideAField() throws {
        let lines = try Self.lines("userId,originalTransactionId\r\n\"a, \"\"b\"\"\nc\",2000000001\r\n\r\nplain,\"2000000002\"")
        #expect(lines.map(\.userId) == ["a, \"b\"\nc", "plain"])
        #expect(lines.map(\.originalTransactionId) == ["2000000001", "2000000002"])
        // Rows are numbered by the line they start on: the quoted newline moved the third.
        #expect(lines.map(\.line) == [2, 5])
    }

    @Test func aShortRowIsALineWithAProblemNotAFailure() throws {
        let lines = try Self.lines("app_user_id,original_transaction_id\nonly-one-field\n")
        #expect(lines.count == 1)
        #expect(lines[0].problem?.contains("1 fields") == true)
        #expect(lines[0].invalidity(apps: []) == lines[0].problem)
    }

    @Test(arguments: [
        ("", "a header row"), ("user,transaction\nu,1\n", "user id column"), ("userId\nu\n", "original transaction id column"),
        ("userId,originalTransactionId\n\"u,1\n", "never closed"),
    ])
    func aFileThatIsNotAnExportIsRefusedWhole(_ text: String, _ says: String) {
        #expect {
            _ = try Self.lines(text)
        } throws: { error in
            (error as? CustomerExportCSV.Problem)?.description.contains(says) == true
        }
    }

    @Test func aLineIsCheckedBeforeApplesIsAsked() {
        let apps: Set<String> = ["com.example.app"]
        func line(_ user: String, _ id: String, _ bundle: String? = nil) -> CustomerImportLine {
            CustomerImportLine(source: .customers, line: 1, userId: user, originalTransactionId: id, bundleId: bundle)
        }
        #expect(line("u", "2000000001").invalidity(apps: apps) == nil)
        #expect(line("u", "2000000001", "com.example.app").invalidity(apps: apps) == nil)
        #expect(line("", "2000000001").invalidity(apps: apps)?.contains("user id is empty") == true)
        #expect(line(String(repeating: "u", count: 257), "1").invalidity(apps: apps)?.contains("longer") == true)
        #expect(line("u\u{7}", "1").invalidity(apps: apps)?.contains("control") == true)
        #expect(line("u", "").invalidity(apps: apps)?.contains("empty") == true)
        #expect(line("u", "GPA.3372-1234").invalidity(apps: apps)?.contains("decimal") == true)
        #expect(line("u", "20000000 1").invalidity(apps: apps)?.contains("decimal") == true)
        #expect(line("u", "2000000001", "com.example.other").invalidity(apps: apps)?.contains("bundle id") == true)
    }

    @Test func theSameLinesNameTheSameRunAndAnyChangeAnother() {
        let one = [CustomerImportLine(source: .customers, line: 1, userId: "u", originalTransactionId: "1")]
        var other = one
        other[0].userId = "v"
        #expect(CustomerImport.runName(one) == CustomerImport.runName(one))
        #expect(CustomerImport.runName(one) != CustomerImport.runName(other))
        #expect(CustomerImport.runName(one).count == 32)
    }
}
