/// Why an identity token (or a server-to-server notification) from Apple was refused. The
/// code names the check that failed, in the order `IdentityTokenVerifier` makes them.
public typealias IdentityTokenError = DomainError<IdentityTokenErrorKind>

public enum IdentityTokenErrorKind: String, ErrorKind {
    /// Not a compact JWS, or claims that do not decode.
    case malformedToken = "malformed_token"
    /// `alg` is not RS256 (`none`, HS256 and everything else are refused before any key is used).
    case unsupportedAlgorithm = "unsupported_algorithm"
    /// No key with this `kid` in Apple's key set, even after the one allowed refresh.
    case unknownKey = "unknown_key"
    case invalidSignature = "invalid_signature"
    case invalidIssuer = "invalid_issuer"
    case invalidAudience = "invalid_audience"
    case tokenExpired = "token_expired"
    case issuedInFuture = "issued_in_future"
    case nonceMismatch = "nonce_mismatch"
    /// Apple's key set could not be fetched and none is cached: try again later.
    case keysUnavailable = "keys_unavailable"

    public var disposition: ErrorDisposition { self == .keysUnavailable ? .retryLater : .badInput }
}
