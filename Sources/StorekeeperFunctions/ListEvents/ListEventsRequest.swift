import FunctionRuntime
import StorekeeperCore

/// list-events' request. Over HTTP GET every parameter is a string: numbers then come as
/// digits, `types` comma-separated.
public struct ListEventsRequest: RequestBody {
    public enum CodingKeys: String, CodingKey, CaseIterable {
        case after, limit, types, userId, environment
    }
    /// nil when absent; `.invalid` when not a whole number.
    var after: WholeNumber?
    var limit: WholeNumber?
    var types: [String]?
    /// Present, but neither an array of strings nor a string.
    var typesUnreadable = false
    var userId: String?
    var environment: String?

    enum WholeNumber: Equatable {
        case value(Int64)
        case invalid
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        after = try Self.wholeNumber(.after, in: container)
        limit = try Self.wholeNumber(.limit, in: container)
        if let list = try? container.decodeIfPresent([String].self, forKey: .types) {
            types = list
        } else if let text = try? container.decodeIfPresent(String.self, forKey: .types) {
            types = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmedOfSpaces }
        } else {
            typesUnreadable = try Self.isPresent(.types, in: container)
        }
        userId = try container.decodeIfPresent(String.self, forKey: .userId)
        environment = try container.decodeIfPresent(String.self, forKey: .environment)
    }

    /// A JSON integer, or a string of ASCII digits (a query parameter).
    private static func wholeNumber(_ key: CodingKeys, in container: KeyedDecodingContainer<CodingKeys>) throws -> WholeNumber? {
        if let number = try? container.decodeIfPresent(Int64.self, forKey: key) { return .value(number) }
        guard let text = try? container.decodeIfPresent(String.self, forKey: key) else {
            // Present but neither: a fraction, a boolean, an object.
            return try isPresent(key, in: container) ? .invalid : nil
        }
        guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              let number = Int64(text) else { return .invalid }
        return .value(number)
    }

    /// Given and not null.
    private static func isPresent(_ key: CodingKeys, in container: KeyedDecodingContainer<CodingKeys>) throws -> Bool {
        guard container.contains(key) else { return false }
        return try !container.decodeNil(forKey: key)
    }

    /// after, limit and the filter, or bad input naming the field.
    func validated() throws -> (after: Int64, limit: Int, filter: EventFilter) {
        var afterValue: Int64 = 0
        if let after {
            guard case .value(let number) = after, number >= 0 else {
                throw FunctionError.badInput(message: "after must be a whole number, 0 or more (a sequence)")
            }
            afterValue = number
        }
        var limitValue = ListEventsFunction.defaultLimit
        if let limit {
            guard case .value(let number) = limit, (1...Int64(ListEventsFunction.maximumLimit)).contains(number) else {
                throw FunctionError.badInput(message: "limit must be a whole number from 1 to \(ListEventsFunction.maximumLimit)")
            }
            limitValue = Int(number)
        }
        return (afterValue, limitValue, try filter())
    }

    private func filter() throws -> EventFilter {
        guard !typesUnreadable else {
            throw FunctionError.badInput(message: "types must be an array of event types, or one string of them comma-separated")
        }
        if let types {
            guard !types.isEmpty else { throw FunctionError.badInput(message: "types must name at least one event type") }
            for type in types where EventType(rawValue: type) == nil {
                throw FunctionError.badInput(message: "\(type.prefix(64)) is not an event type")
            }
        }
        if let userId, userId.isEmpty {
            throw FunctionError.badInput(message: "userId must not be empty")
        }
        if let environment, Environment(rawValue: environment) == nil {
            throw FunctionError.badInput(message: "environment must be one of Production, Sandbox, Xcode, LocalTesting")
        }
        return EventFilter(types: types.map(Set.init), userId: userId, environment: environment)
    }
}
