/// What a failure means for whoever asked: the one thing an answer's HTTP status and a
/// process's exit code are derived from (in FunctionRuntime, `ErrorDisposition+Answer.swift`,
/// and nowhere else).
public enum ErrorDisposition: Hashable, Sendable {
    /// The request is wrong; the same request fails again.
    case caller(CallerFault)
    /// Nothing is wrong with the request: the store, Apple or a responder is down right now.
    case retryLater
    /// Too many requests right now: retry after the time the answer says (`Retry-After`).
    case throttled
    /// Our deployment is wrong (a variable, a key, a secret): an operator must fix it.
    case configuration
    /// Apple refused the credentials we present (an API token Apple does not accept): the
    /// fix is ours, but the failure is the upstream's answer.
    case upstreamRefused
    /// Apple answered, but not with what it documents: nothing the caller can change.
    case upstreamFailed
    /// A bug of ours.
    case internalFailure

    /// The finer kinds of a caller's mistake, each with its own HTTP status.
    public enum CallerFault: Hashable, Sendable, CaseIterable {
        case badInput
        case unauthorized
        case forbidden
        case notFound
        case methodNotAllowed
        case payloadTooLarge
    }

    /// The same request can succeed later.
    public var isRetryable: Bool { self == .retryLater || self == .throttled }

    public static let badInput = ErrorDisposition.caller(.badInput)
}
