/// A failure talking to Apple's ID server (`/auth/token`, `/auth/revoke`, `/auth/keys`).
///
/// Apple answers OAuth 2.0 errors (RFC 6749 §5.2) as `{"error": "invalid_grant"}`; the code
/// is Apple's, and the reason says what usually causes it, because Apple says nothing more.
/// https://developer.apple.com/documentation/signinwithapplerestapi/errorresponse
public typealias AppleIDError = DomainError<AppleIDErrorKind>

public enum AppleIDErrorKind: String, ErrorKind {
    case invalidRequest = "invalid_request"
    /// Apple refused our client secret: our configuration, not the caller's mistake.
    case invalidClient = "invalid_client"
    case invalidGrant = "invalid_grant"
    /// This client id may not use this grant: our configuration too.
    case unauthorizedClient = "unauthorized_client"
    case unsupportedGrantType = "unsupported_grant_type"
    case invalidScope = "invalid_scope"
    /// An error code Apple added that this version does not know (kept in `reason`).
    case other = "apple_error"
    /// Not reachable, timed out, 5xx or 429: try again later.
    case unavailable = "apple_unavailable"
    /// A 200 whose body is not what Apple documents.
    case invalidResponse = "apple_invalid_response"

    public var disposition: ErrorDisposition {
        switch self {
        case .invalidClient, .unauthorizedClient: .configuration
        case .unavailable: .retryLater
        case .invalidResponse: .upstreamFailed
        case .invalidRequest, .invalidGrant, .unsupportedGrantType, .invalidScope, .other: .badInput
        }
    }
}

extension AppleIDError {
    /// The typed error for Apple's `error` value, with the usual cause spelled out.
    public static func fromOAuth(_ error: String, description: String?, fileID: String = #fileID, line: Int = #line) -> AppleIDError {
        let kind = AppleIDErrorKind(rawValue: error).flatMap { $0 == .other || $0 == .unavailable || $0 == .invalidResponse ? nil : $0 } ?? .other
        var reason: String
        switch kind {
        case .invalidClient:
            reason = "Apple refused the client secret: usually a wrong key id (SIWA_KEY_ID), team id (SIWA_TEAM_ID) or client id, a key not enabled for Sign in with Apple, or a clock minutes off"
        case .invalidGrant:
            reason = "the authorization code or refresh token is invalid, expired (codes live five minutes), already used, revoked, or was issued to another client id or redirect URI"
        case .invalidRequest:
            reason = "Apple found the request malformed: a parameter missing, repeated or not allowed"
        case .unauthorizedClient:
            reason = "this client id may not use this grant: check the Services ID or App ID configuration"
        case .unsupportedGrantType:
            reason = "Apple does not support this grant_type"
        case .invalidScope:
            reason = "Apple refused the requested scope (only name and email exist)"
        case .other, .unavailable, .invalidResponse:
            reason = "Apple answered the error \(String(error.prefix(60).filter { $0.isLetter || $0 == "_" }))"
        }
        if let description, !description.isEmpty {
            reason += " (Apple: \(description.prefix(200)))"
        }
        return AppleIDError(kind, reason, fileID: fileID, line: line)
    }
}
