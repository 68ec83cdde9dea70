/// One cell of a row export-data writes: what a warehouse column holds.
public enum ExportCell: Sendable, Equatable {
    case text(String)
    case integer(Int64)
    /// Milliseconds since 1970, written as the request's `dates` say (`ExportDates`).
    case date(Int64)
    case bool(Bool)
    /// Not known: an empty field in CSV, null in NDJSON.
    case empty

    static func text(_ value: String?) -> ExportCell { value.map(ExportCell.text) ?? .empty }
    static func integer(_ value: Int64?) -> ExportCell { value.map(ExportCell.integer) ?? .empty }
    static func integer(_ value: Int32?) -> ExportCell { value.map { .integer(Int64($0)) } ?? .empty }
    static func date(_ value: Int64?) -> ExportCell { value.map(ExportCell.date) ?? .empty }
    static func bool(_ value: Bool?) -> ExportCell { value.map(ExportCell.bool) ?? .empty }
}

/// How rows are written: CSV (RFC 4180, a header line first) or NDJSON (one JSON object a
/// line, named as the CSV header names the columns).
public enum ExportFormat: String, Sendable, CaseIterable {
    case csv
    case ndjson
}

/// How dates are written: ISO 8601 in UTC with milliseconds (`2026-06-01T08:00:00.000Z`,
/// what a spreadsheet reads), or milliseconds since 1970 as the rest of Storekeeper answers
/// them (what a warehouse computes with).
public enum ExportDates: String, Sendable, CaseIterable {
    case iso8601
    case milliseconds

    /// CSV is opened in spreadsheets; NDJSON is read by programs.
    public static func defaults(for format: ExportFormat) -> ExportDates {
        format == .csv ? .iso8601 : .milliseconds
    }
}
