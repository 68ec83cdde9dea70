/// Rows under named columns, written as CSV or NDJSON. The column names are the contract a
/// warehouse loads by: the same names in the CSV header and as NDJSON keys, in one order.
public struct ExportTable: Sendable {
    public let columns: [String]
    public let format: ExportFormat
    public let dates: ExportDates
    /// The output so far: each row is written as it is added, so a run holds its output and
    /// nothing else (a few hundred bytes a row, not the rows' values).
    public private(set) var bytes: [UInt8] = []
    public private(set) var rowCount = 0

    /// CSV starts with its header line; NDJSON has no line at all while there is no row.
    public init(columns: [String], format: ExportFormat, dates: ExportDates) {
        self.columns = columns
        self.format = format
        self.dates = dates
        if format == .csv { Self.csvLine(columns.map { .text($0) }, dates: dates, into: &bytes) }
    }

    /// For CSV a line ended by CRLF (RFC 4180), for NDJSON an object ended by LF.
    public mutating func append(_ row: [ExportCell]) {
        precondition(row.count == columns.count, "a row of \(row.count) cells under \(columns.count) columns")
        switch format {
        case .csv: Self.csvLine(row, dates: dates, into: &bytes)
        case .ndjson: Self.ndjsonLine(row, columns: columns, dates: dates, into: &bytes)
        }
        rowCount += 1
    }

    /// An NDJSON line rendered elsewhere (an event, as delivered).
    mutating func appendLine(_ line: [UInt8]) {
        bytes += line
        bytes.append(0x0A)
        rowCount += 1
    }

    private static func csvLine(_ cells: [ExportCell], dates: ExportDates, into out: inout [UInt8]) {
        for (index, cell) in cells.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out += csvField(cell, dates: dates)
        }
        out += [0x0D, 0x0A]
    }

    /// A field is quoted when it holds a comma, a quote, CR or LF (or starts or ends with a
    /// space, which readers would trim); a quote inside is doubled.
    static func csvField(_ cell: ExportCell, dates: ExportDates) -> [UInt8] {
        guard case .text(let text) = cell else { return Array(plain(cell, dates: dates).utf8) }
        let bytes = Array(text.utf8)
        let special: Set<UInt8> = [UInt8(ascii: ","), UInt8(ascii: "\""), 0x0D, 0x0A]
        let needsQuotes = bytes.contains(where: special.contains) || bytes.first == 0x20 || bytes.last == 0x20
        guard needsQuotes else { return bytes }
        var quoted: [UInt8] = [UInt8(ascii: "\"")]
        for byte in bytes {
            if byte == UInt8(ascii: "\"") { quoted.append(byte) }
            quoted.append(byte)
        }
        quoted.append(UInt8(ascii: "\""))
        return quoted
    }

    private static func ndjsonLine(_ cells: [ExportCell], columns: [String], dates: ExportDates, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        for (index, cell) in cells.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            jsonString(columns[index], into: &out)
            out.append(UInt8(ascii: ":"))
            switch cell {
            case .text(let text): jsonString(text, into: &out)
            case .date where dates == .iso8601: jsonString(plain(cell, dates: dates), into: &out)
            case .empty: out += Array("null".utf8)
            default: out += Array(plain(cell, dates: dates).utf8)
            }
        }
        out += [UInt8(ascii: "}"), 0x0A]
    }

    /// A cell's text as it stands unquoted.
    static func plain(_ cell: ExportCell, dates: ExportDates) -> String {
        switch cell {
        case .text(let text): text
        case .integer(let value): String(value)
        case .date(let milliseconds): dates == .milliseconds ? String(milliseconds) : iso8601(milliseconds)
        case .bool(let value): value ? "true" : "false"
        case .empty: ""
        }
    }

    /// UTC with milliseconds: `2026-06-01T08:00:00.000Z`.
    static func iso8601(_ milliseconds: Int64) -> String {
        UTCTimestamp.format(milliseconds: milliseconds)
    }

    /// JSON string escaping (RFC 8259): quote, backslash and control characters.
    static func jsonString(_ text: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), byte]
            case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), byte]
            case 0x0A: out += Array("\\n".utf8)
            case 0x0D: out += Array("\\r".utf8)
            case 0x09: out += Array("\\t".utf8)
            case ..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
