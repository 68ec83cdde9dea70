/// A hosted service's customer export as CSV (RFC 4180: commas, double-quoted fields with
/// `""` for a quote, CRLF or LF): a header names the columns, in any order and with any
/// others beside them. The user id is `userId` or `app_user_id` (RevenueCat's name), the
/// original transaction id `originalTransactionId` or `original_transaction_id`, the
/// optional app `bundleId` or `bundle_id`; names are matched ignoring case and spaces.
public enum CustomerExportCSV {
    public static let userIdColumns = ["userid", "app_user_id"]
    public static let originalTransactionIdColumns = ["originaltransactionid", "original_transaction_id"]
    public static let bundleIdColumns = ["bundleid", "bundle_id"]
    /// A bigger export is split into several runs.
    public static let maximumRows = 1_000_000

    /// What is wrong with the file as a whole (no header, a missing column, an open quote).
    public struct Problem: Error, Sendable, Equatable {
        public let description: String
    }

    /// The file's rows as import lines; a row with too few fields is a line with a problem
    /// (reported as invalid), blank rows are skipped.
    public static func lines(_ bytes: [UInt8]) throws(Problem) -> [CustomerImportLine] {
        var rows = try self.rows(bytes)
        guard !rows.isEmpty else { throw Problem(description: "the file is empty: a header row is needed") }
        let header = rows.removeFirst().fields.map { $0.filter { $0 != " " && $0 != "\t" }.lowercased() }
        guard let user = header.firstIndex(where: userIdColumns.contains) else {
            throw Problem(description: "the header names no user id column (userId or app_user_id)")
        }
        guard let original = header.firstIndex(where: originalTransactionIdColumns.contains) else {
            throw Problem(description: "the header names no original transaction id column (originalTransactionId or original_transaction_id)")
        }
        guard rows.count <= maximumRows else { throw Problem(description: "more than \(maximumRows) rows: split the export") }
        let bundle = header.firstIndex(where: bundleIdColumns.contains)
        return rows.map { row in
            let needed = max(user, original, bundle ?? 0) + 1
            func field(_ index: Int) -> String { index < row.fields.count ? row.fields[index] : "" }
            let bundleId = bundle.map(field).flatMap { $0.isEmpty ? nil : $0 }
            return CustomerImportLine(
                source: .file, line: row.number, userId: field(user), originalTransactionId: field(original), bundleId: bundleId,
                problem: row.fields.count < needed ? "the row has \(row.fields.count) fields, the header \(header.count)" : nil)
        }
    }

    /// Every non-blank row with the line number it starts on.
    static func rows(_ bytes: [UInt8]) throws(Problem) -> [(number: Int, fields: [String])] {
        var input = bytes[...]
        if input.starts(with: [0xEF, 0xBB, 0xBF]) { input = input.dropFirst(3) }
        var rows: [(number: Int, fields: [String])] = []
        var reader = Reader(bytes: input)
        while let row = try reader.nextRow() {
            if row.fields.count == 1, row.fields[0].isEmpty { continue }
            rows.append(row)
        }
        return rows
    }

    private struct Reader {
        var bytes: ArraySlice<UInt8>
        var lineNumber = 1

        mutating func nextRow() throws(Problem) -> (number: Int, fields: [String])? {
            guard !bytes.isEmpty else { return nil }
            let number = lineNumber
            var fields: [String] = []
            while true {
                let (field, ended) = try nextField()
                fields.append(field)
                if ended { return (number, fields) }
            }
        }

        /// One field and whether it ended its row.
        private mutating func nextField() throws(Problem) -> (String, Bool) {
            var value: [UInt8] = []
            if bytes.first == UInt8(ascii: "\"") {
                bytes.removeFirst()
                let start = lineNumber
                while true {
                    guard let byte = bytes.popFirst() else { throw Problem(description: "row \(start): a quoted field is never closed") }
                    if byte == UInt8(ascii: "\n") { lineNumber += 1 }
                    if byte == UInt8(ascii: "\"") {
                        guard bytes.first == UInt8(ascii: "\"") else { break }
                        bytes.removeFirst()
                    }
                    value.append(byte)
                }
            }
            while let byte = bytes.popFirst() {
                switch byte {
                case UInt8(ascii: ","): return (Self.text(value), false)
                case UInt8(ascii: "\n"):
                    lineNumber += 1
                    return (Self.text(value), true)
                case UInt8(ascii: "\r") where bytes.first == UInt8(ascii: "\n"): continue
                default: value.append(byte)
                }
            }
            return (Self.text(value), true)
        }

        /// Fields are trimmed of spaces around them (spreadsheets add them).
        private static func text(_ bytes: [UInt8]) -> String {
            let blank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
            let start = bytes.firstIndex { !blank($0) } ?? bytes.endIndex
            let end = bytes.lastIndex { !blank($0) }.map { $0 + 1 } ?? start
            return String(decoding: bytes[start..<max(start, end)], as: UTF8.self)
        }
    }
}
