import FunctionRuntime
import StorekeeperCore

/// The answer of a function that asks Apple for its caller: its own typed body, or a failure
/// answered with more than a code and a message (Apple's numbers, whether to retry, how many
/// attempts were made), which the runtime's `{"error": {"code", "message"}}` cannot carry.
public enum CallOutcome<Body: Encodable>: Encodable {
    case answered(Body)
    case failed(FailureAnswer)

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .answered(let body): try body.encode(to: encoder)
        case .failed(let failure): try failure.encode(to: encoder)
        }
    }
}

/// `{"error": {...}}` with a failure's details.
public struct FailureAnswer: Encodable {
    struct Detail: Encodable {
        var code: String
        var message: String
        /// Apple's numeric error code, when Apple answered with one.
        var errorCode: Int64?
        var httpStatus: Int?
        var retryable: Bool?
        var attempts: Int?
    }

    var error: Detail
}

extension Reply {
    /// Apple's error as a function answer: Apple's name as the code, the status and exit code
    /// of its disposition (`AppStoreAPIError` says which Apple answer is which).
    static func failed<Answer>(_ error: AppStoreAPIError) -> Reply<CallOutcome<Answer>> where Body == CallOutcome<Answer> {
        let detail = FailureAnswer.Detail(
            code: error.code, message: error.reason, errorCode: error.errorCode, httpStatus: error.httpStatus,
            retryable: error.isRetryable, attempts: error.attempts)
        return Reply(.failed(FailureAnswer(error: detail)), refusing: error)
    }
}
