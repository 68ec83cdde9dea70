/// A failure that crosses the wire: a stable `code` users can match on, a `reason` for the
/// operator's log, and whether trying again later can succeed.
///
/// `reason` must never carry a secret, a token or a whole JWS: it is logged as is.
public protocol CodedError: Error, CustomStringConvertible {
    /// The stable wire code (Apple's or OAuth's name where one exists).
    var code: String { get }
    /// A short explanation for the log; safe to print.
    var reason: String { get }
    /// True when the same request can succeed later (store down, Apple 5xx, OCSP unreachable).
    var isRetryable: Bool { get }
}

extension CodedError {
    public var description: String { "\(code): \(reason)" }
}
