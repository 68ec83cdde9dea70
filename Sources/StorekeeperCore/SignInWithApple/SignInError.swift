/// A sign-in refused for a reason of its own (not the token's, not Apple's).
public typealias SignInError = DomainError<SignInErrorKind>

public enum SignInErrorKind: String, ErrorKind {
    /// The callback's `state` is unknown, expired or was already used (a replay).
    case invalidState = "invalid_state"
    /// The token from the code exchange names another user than the app's identity token.
    case subjectMismatch = "subject_mismatch"
    /// Apple's token response carried no `id_token`.
    case missingIdentityToken = "missing_id_token"

    public var disposition: ErrorDisposition { .badInput }
}
