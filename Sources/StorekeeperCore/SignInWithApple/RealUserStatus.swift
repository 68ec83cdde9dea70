/// Apple's judgement of whether the account belongs to a real person (`real_user_status`).
/// https://developer.apple.com/documentation/authenticationservices/asuserdetectionstatus
/// The raw value is kept so a new value decodes instead of failing.
public enum RealUserStatus: Int, Sendable {
    case unsupported = 0
    case unknown = 1
    case likelyReal = 2
}
