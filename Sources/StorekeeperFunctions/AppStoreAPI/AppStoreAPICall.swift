import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// One `app-store-api` request turned into App Store Server API operations: the parameters
/// checked and typed once, then one operation per page, and the pages merged into one answer.
struct AppStoreAPICall {
    /// One operation per page: given the page's cursor (nil for the first page unless the
    /// caller gave one), the request for that page.
    typealias Build = (String?) throws(AppStoreAPIError) -> AppStoreAPIOperation

    let spec: AppStoreAPIOperationSpec
    private let build: Build
    /// The revision or pagination token the caller started from.
    let initialCursor: String?

    init(spec: AppStoreAPIOperationSpec, parameters: Parameters) throws {
        self.spec = spec
        // The operation's own parameters are checked before the cursor, so the first bad one
        // named in the answer stays the same.
        build = try spec.makeOperation(parameters)
        switch spec.paging {
        case .none: initialCursor = nil
        case .revision: initialCursor = try parameters.strings("revision")?.first
        case .paginationToken: initialCursor = try parameters.strings("paginationToken")?.first
        }
    }

    func operation(cursor: String?) throws(AppStoreAPIError) -> AppStoreAPIOperation {
        try build(cursor)
    }

    /// The cursor for the next page, or nil when this was the last one.
    func nextCursor(_ page: [UInt8]) throws -> String? {
        let value = try Self.parse(page)
        guard value["hasMore"] == .bool(true) else { return nil }
        switch spec.paging {
        case .none: return nil
        case .revision: return value["revision"]?.stringValue
        case .paginationToken: return value["paginationToken"]?.stringValue
        }
    }

    /// One answer: the last page's fields, with the pages' items concatenated in order.
    func merge(_ pages: [[UInt8]]) throws -> JSONValue {
        guard let last = pages.last else { return .object([:]) }
        if last.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return .object([:]) }
        let items: String
        switch spec.paging {
        case .none: return try Self.parse(last)
        case .revision(let name), .paginationToken(let name): items = name
        }
        guard pages.count > 1, case .object(var merged) = try Self.parse(last) else { return try Self.parse(last) }
        var all: [JSONValue] = []
        for page in pages {
            if case .array(let some)? = try Self.parse(page)[items] { all += some }
        }
        merged[items] = .array(all)
        return .object(merged)
    }

    private static func parse(_ bytes: [UInt8]) throws -> JSONValue {
        do {
            return try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
        } catch {
            throw AppStoreAPIError(.invalidResponse, kind: .invalidResponse,
                                   reason: "Apple's answer is not JSON", httpStatus: 200)
        }
    }

    // MARK: Parameters

    /// The request's identifiers, query and body, already checked against the spec's names;
    /// read here into the types each operation takes, with one error message per mistake.
    struct Parameters {
        let identifiers: [String: String]
        let query: [String: JSONValue]
        let body: [String: JSONValue]
        /// uploadImage's bytes; nil for every other operation.
        var image: [UInt8]? = nil

        /// A required identifier (its presence is checked before the call is built).
        func identifier(_ name: String) -> String { identifiers[name] ?? "" }

        /// The query parameter `name` as text: one value or a list, numbers and booleans as written.
        func strings(_ name: String) throws -> [String]? {
            guard let value = query[name] else { return nil }
            func one(_ item: JSONValue) throws -> String {
                switch item {
                case .string(let text): return text
                case .number(let number) where number.rounded() == number && abs(number) < 9_007_199_254_740_992:
                    return String(Int64(number))
                case .bool(let flag): return flag ? "true" : "false"
                default: throw FunctionError.badInput(message: "query.\(name) must be a string, a number or a list of them")
                }
            }
            if case .array(let items) = value { return try items.map(one) }
            return [try one(value)]
        }

        func milliseconds(_ name: String) throws -> Int64? {
            guard let text = try strings(name) else { return nil }
            guard text.count == 1, let milliseconds = Int64(text[0]), milliseconds >= 0 else {
                throw FunctionError.badInput(message: "query.\(name) must be milliseconds since 1970")
            }
            return milliseconds
        }

        func bool(_ name: String) throws -> Bool? {
            guard let text = try strings(name) else { return nil }
            switch text {
            case ["true"]: return true
            case ["false"]: return false
            default: throw FunctionError.badInput(message: "query.\(name) must be true or false")
            }
        }

        func decodeBody<T: Decodable>() throws -> T {
            do {
                let bytes = try JSONEncoder().encode(body)
                return try JSONDecoder().decode(T.self, from: bytes)
            } catch let error as DecodingError {
                var path = ""
                switch error {
                case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context), .dataCorrupted(let context):
                    path = context.codingPath.map(\.stringValue).joined(separator: ".")
                @unknown default: break
                }
                throw FunctionError.badInput(message: "body\(path.isEmpty ? "" : ".\(path)") has the wrong type")
            }
        }
    }
}
