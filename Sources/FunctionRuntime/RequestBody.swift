/// A function's own JSON request object.
///
/// Its accepted top-level fields are its coding keys, so a request type names each field once:
/// declare `enum CodingKeys: String, CodingKey, CaseIterable` and `FunctionRequest.decode`
/// rejects any other field by name (a misspelt optional field would otherwise be silently
/// ignored). A type whose keys are not `CaseIterable` does not compile as a `RequestBody`.
public protocol RequestBody: Decodable {
    associatedtype CodingKeys: CodingKey & CaseIterable
    /// Derived from the coding keys; only `NoFields` says otherwise.
    static var fields: Set<String> { get }
}

extension RequestBody {
    /// Every accepted top-level field name, optional ones included: the coding keys.
    public static var fields: Set<String> { Set(CodingKeys.allCases.map(\.stringValue)) }
}

/// The request of a function that takes no fields: `{}` (or an empty query over HTTP GET).
public struct NoFields: RequestBody, Sendable {
    public enum CodingKeys: String, CodingKey, CaseIterable {
        // An enum with a raw type needs a case; `fields` leaves it out, so it is refused too.
        case unused = " unused"
    }

    public static var fields: Set<String> { [] }

    public init() {}

    public init(from decoder: any Decoder) throws {}
}
