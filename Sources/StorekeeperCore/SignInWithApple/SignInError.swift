/// A sign-in refused for a reason of its own (not the token's, not Apple's).
public struct SignInError: CodedError, Equatable {
    public enum Kind: String, Sendable {
        /// The callback's `state` is unknown, expired or was already used (a replay).
        case invalidState = "invalid_state"
        /// The token from the code exchange names another user than the app's identity token.
        case subjectMismatch = "subject_mismatch"
        /// Apple's token response carried no `id_token`.
        case missingIdentityToken = "missing_id_token"
    }

    public let kind: Kind
    public let reason: String

    public init(_ kind: Kind, _ reason: String) {
        self.kind = kind
        self.reason = reason
    }

    public var code: String { kind.rawValue }
    public var isRetryable: Bool { false }

    public static func == (lhs: SignInError, rhs: SignInError) -> Bool { lhs.kind == rhs.kind }
}
