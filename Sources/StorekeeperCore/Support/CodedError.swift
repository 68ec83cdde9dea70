/// A failure that crosses the wire: a stable `code` users can match on, a `reason` for the
/// operator's log, a `disposition` that decides the answer's status and exit code, and the
/// place in the source it was made.
///
/// Most errors are a `DomainError` over their domain's `ErrorKind`; the few that carry more
/// (`AppStoreAPIError`: Apple's numeric code, attempts, `Retry-After`) conform directly. All
/// behaviour beyond the four requirements is here, once.
///
/// `reason` must never carry a secret, a token or a whole JWS: it is logged as is.
public protocol CodedError: Error, CustomStringConvertible {
    /// The stable wire code (Apple's or OAuth's name where one exists).
    var code: String { get }
    /// A short explanation for the log; safe to print.
    var reason: String { get }
    var disposition: ErrorDisposition { get }
    /// Where the error was made, for the log only.
    var origin: ErrorOrigin { get }
    /// Fields the wire error object carries beside `code` and `message`; none by default.
    var details: [ErrorDetail] { get }
}

extension CodedError {
    public var description: String { "\(code): \(reason)" }
    /// True when the same request can succeed later (store down, Apple 5xx, OCSP unreachable).
    public var isRetryable: Bool { disposition.isRetryable }
    public var details: [ErrorDetail] { [] }
}
