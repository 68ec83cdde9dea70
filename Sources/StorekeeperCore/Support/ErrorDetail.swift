/// A field an error adds to its wire object beside `code` and `message` (Apple's numeric
/// `errorCode`, the attempts made): safe to answer, unlike the log-only `reason`.
public struct ErrorDetail: Sendable, Equatable {
    public enum Value: Sendable, Equatable {
        case string(String)
        case integer(Int64)
        case boolean(Bool)
    }

    public let name: String
    public let value: Value

    public init(_ name: String, _ value: Value) {
        self.name = name
        self.value = value
    }
}
