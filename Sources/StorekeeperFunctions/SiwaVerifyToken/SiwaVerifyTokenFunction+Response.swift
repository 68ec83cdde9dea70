import StorekeeperCore

extension SiwaVerifyTokenFunction {
    /// One of three answers: a verified token's claims, an open session, or a refusal.
    public enum Response: Encodable {
        case token(TokenAnswer)
        case session(SessionAnswer)
        case refused(Refusal)

        public func encode(to encoder: any Encoder) throws {
            switch self {
            case .token(let answer): try answer.encode(to: encoder)
            case .session(let answer): try answer.encode(to: encoder)
            case .refused(let refusal): try refusal.encode(to: encoder)
            }
        }
    }

    public struct TokenAnswer: Encodable {
        var valid = true
        var claims: IdentityTokenClaims
    }

    public struct SessionAnswer: Encodable {
        var valid = true
        var userId: String
        var appAccountToken: String?
        var expiresAt: Int64
        /// "valid" | "skipped" (checked in the last 24 hours, or no token kept) | "unavailable"
        /// (Apple did not answer, or answered an error other than invalid_grant) | "not_configured".
        var refreshCheck: String
    }

    /// `{"valid": false, "error": {"code", "message"}}`: the check that failed.
    public struct Refusal: Encodable {
        struct Failure: Encodable {
            var code: String
            var message: String
        }
        var valid = false
        var error: Failure
    }
}
