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
    /// Apple's error as a function answer: Apple's name as the code; retryable is 503 and
    /// exit 75; a refused token is a configuration problem (502, exit 78); "not found" is 404;
    /// an unreadable answer 502 (exit 69); any other refusal is 400 (exit 65).
    static func failed<Answer>(_ error: AppStoreAPIError) -> Reply<CallOutcome<Answer>> where Body == CallOutcome<Answer> {
        let (status, exitCode): (Int, Int32) =
            if error.isRetryable { (503, 75) }
            else if error.kind == .unauthorized { (502, 78) }
            else if error.httpStatus == 404 { (404, 65) }
            else if error.kind == .invalidResponse { (502, 69) }
            else { (400, 65) }
        let detail = FailureAnswer.Detail(
            code: error.code, message: error.reason, errorCode: error.errorCode, httpStatus: error.httpStatus,
            retryable: error.isRetryable, attempts: error.attempts)
        return Reply(.failed(FailureAnswer(error: detail)), status: status, exitCode: exitCode)
    }
}
