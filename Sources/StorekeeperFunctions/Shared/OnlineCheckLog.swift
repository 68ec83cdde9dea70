import FunctionRuntime
import StorekeeperCore

extension Logger {
    /// Data accepted without a settled online check is never accepted silently: every
    /// function that verifies App Store data says so in its log, the same way.
    func onlineCheck(_ outcome: RevocationOutcome) {
        switch outcome {
        case .notChecked, .good:
            break
        case .cachedWhileUnreachable:
            warning("OCSP responder unreachable; a recent good answer was used")
        case .unchecked(let reason):
            warning("online check not possible; accepted under the soft policy", ["reason": reason])
        }
    }
}

extension RevocationOutcome {
    /// The answer's `onlineCheck` field; nil when online checks are off.
    var answerValue: String? {
        switch self {
        case .notChecked: nil
        case .good: "good"
        case .cachedWhileUnreachable: "cached"
        case .unchecked: "unchecked"
        }
    }
}
