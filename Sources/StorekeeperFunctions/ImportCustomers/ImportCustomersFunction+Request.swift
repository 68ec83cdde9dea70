import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

extension ImportCustomersFunction {
    public struct Request: RequestBody {
        public enum CodingKeys: String, CodingKey, CaseIterable {
            case customers, file, budgetSeconds, restart
        }

        /// One pair, as a hosted service exports it (either spelling of each name).
        struct Customer: Decodable {
            enum CodingKeys: String, CodingKey {
                case userId, originalTransactionId, bundleId
                case appUserId = "app_user_id"
                case originalTransactionIdSnake = "original_transaction_id"
                case bundleIdSnake = "bundle_id"
            }

            /// Any key, to name the ones a line should not have.
            struct AnyKey: CodingKey {
                let stringValue: String
                var intValue: Int? { nil }
                init(stringValue: String) { self.stringValue = stringValue }
                init?(intValue: Int) { nil }
            }

            static let names: Set<String> = ["userId", "originalTransactionId", "bundleId", "app_user_id", "original_transaction_id", "bundle_id"]

            let userId: String?
            let originalTransactionId: String?
            let bundleId: String?
            /// A misspelt name would otherwise be ignored (a bundleId typo would import into the default app).
            let unknownField: String?

            init(from decoder: any Decoder) throws {
                unknownField = try decoder.container(keyedBy: AnyKey.self).allKeys.map(\.stringValue)
                    .filter { !Self.names.contains($0) }.sorted().first
                let container = try decoder.container(keyedBy: CodingKeys.self)
                userId = try container.decodeIfPresent(String.self, forKey: .userId)
                    ?? container.decodeIfPresent(String.self, forKey: .appUserId)
                originalTransactionId = try container.decodeIfPresent(String.self, forKey: .originalTransactionId)
                    ?? container.decodeIfPresent(String.self, forKey: .originalTransactionIdSnake)
                bundleId = try container.decodeIfPresent(String.self, forKey: .bundleId)
                    ?? container.decodeIfPresent(String.self, forKey: .bundleIdSnake)
            }
        }

        var customers: [Customer]?
        /// A CSV export on this machine (direct calls only: the function has no route).
        var file: String?
        var budgetSeconds: Double?
        var restart: Bool?
    }

    /// The largest file read: a million rows of an export fit well within it.
    static let maximumFileBytes = 256 << 20

    /// Every line of the request: `customers` first, then the file's rows. Something wrong
    /// with the request as a whole is 400 before anything is done; a bad line is that line's.
    static func lines(of request: Request) throws -> [CustomerImportLine] {
        guard request.customers != nil || request.file != nil else {
            throw FunctionError.badInput(message: "customers or file is required")
        }
        var lines = (request.customers ?? []).enumerated().map { index, customer in
            CustomerImportLine(source: .customers, line: index + 1, userId: customer.userId ?? "",
                               originalTransactionId: customer.originalTransactionId ?? "", bundleId: customer.bundleId,
                               problem: customer.unknownField.map { "unknown field `\($0.prefix(40))`" })
        }
        if let path = request.file {
            lines += try fileLines(path)
        }
        guard !lines.isEmpty else { throw FunctionError.badInput(message: "the request names no customer") }
        guard lines.count <= CustomerExportCSV.maximumRows else {
            throw FunctionError.badInput(message: "more than \(CustomerExportCSV.maximumRows) customers: split the import")
        }
        return lines
    }

    private static func fileLines(_ path: String) throws -> [CustomerImportLine] {
        guard !path.isEmpty else { throw FunctionError.badInput(message: "file must name a CSV file") }
        let contents: Data
        do {
            contents = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw FunctionError.badInput(message: "file cannot be read: \(path)")
        }
        guard contents.count <= maximumFileBytes else {
            throw FunctionError.badInput(message: "file is larger than \(maximumFileBytes >> 20) MB: split the export")
        }
        do {
            return try CustomerExportCSV.lines(Array(contents))
        } catch {
            throw FunctionError.badInput(message: "file: \(error.description)")
        }
    }
}
