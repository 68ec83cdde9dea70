import FunctionRuntime
import StorekeeperCore

extension ExportDataFunction {
    public struct Request: RequestBody {
        public enum CodingKeys: String, CodingKey, CaseIterable {
            case format, of, file, replace, cursor, full, limit, dates
        }

        var format: String?
        var of: String?
        /// Where to write (direct calls only: the function has no route); stdout without it.
        var file: String?
        var replace: Bool?
        var cursor: String?
        var full: Bool?
        var limit: Int?
        var dates: String?
    }

    /// A run holds its output in memory until it is written: a few hundred bytes a row.
    static let defaultLimit = 50_000
    static let maximumLimit = 1_000_000
    /// A cursor's name is part of its store key.
    static let cursorBytes = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-".utf8)

    /// The request checked, in the order its fields are documented; nothing is read before.
    struct Plan {
        var export: DataExport.Request
        var file: ExportFile?
    }

    static func plan(_ request: Request) throws -> Plan {
        guard let formatName = request.format else { throw FunctionError.badInput(message: "format is required: csv or ndjson") }
        guard let format = ExportFormat(rawValue: formatName) else {
            throw FunctionError.badInput(message: "format must be csv or ndjson, not `\(formatName.prefix(40))`")
        }
        let of = try request.of.map { name in
            guard let kind = ExportCursor.Kind(rawValue: name) else {
                throw FunctionError.badInput(message: "of must be transactions or events, not `\(name.prefix(40))`")
            }
            return kind
        } ?? .transactions
        let dates = try request.dates.map { name in
            guard let dates = ExportDates(rawValue: name) else {
                throw FunctionError.badInput(message: "dates must be iso8601 or milliseconds, not `\(name.prefix(40))`")
            }
            return dates
        } ?? ExportDates.defaults(for: format)
        let limit = request.limit ?? defaultLimit
        guard (1...maximumLimit).contains(limit) else {
            throw FunctionError.badInput(message: "limit must be between 1 and \(maximumLimit)")
        }
        let cursor = request.cursor ?? of.rawValue
        guard (1...64).contains(cursor.utf8.count), cursor.utf8.allSatisfy(cursorBytes.contains) else {
            throw FunctionError.badInput(message: "cursor must be 1 to 64 letters, digits, `.`, `_` or `-`")
        }
        guard request.replace == nil || request.file != nil else {
            throw FunctionError.badInput(message: "replace is about a file: name the file")
        }
        let file = request.file.map { ExportFile(path: $0, replace: request.replace ?? false) }
        try file?.check()
        return Plan(export: DataExport.Request(of: of, cursor: cursor, full: request.full ?? false, limit: limit,
                                               format: format, dates: dates), file: file)
    }
}
