/// A failure of the key-value store. Unreachable or busy is retryable: the caller answers
/// 503 / exits 75 so the work is tried again, never dropped.
public struct StoreError: CodedError, Equatable {
    public enum Kind: String, Sendable {
        /// Cannot connect, connection lost, timed out, database locked beyond the busy timeout.
        case unavailable = "store_unavailable"
        /// STORE_URL is malformed or names an unsupported scheme (exit 78).
        case invalidConfiguration = "store_configuration_error"
        /// The store answered something that breaks its contract (corrupt data, a script error).
        case failed = "store_error"
    }

    public let kind: Kind
    public let reason: String

    public init(_ kind: Kind, _ reason: String) {
        self.kind = kind
        self.reason = reason
    }

    public var code: String { kind.rawValue }
    public var isRetryable: Bool { kind == .unavailable }

    public static func == (lhs: StoreError, rhs: StoreError) -> Bool { lhs.kind == rhs.kind }
}
