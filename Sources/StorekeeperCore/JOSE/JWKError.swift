/// Why a JWK (one of Apple's Sign in with Apple keys) cannot be used: Apple published a key
/// this code cannot read.
public typealias JWKError = DomainError<JWKErrorKind>

public enum JWKErrorKind: String, ErrorKind {
    case unusableKey = "unusable_key"

    public var disposition: ErrorDisposition { .upstreamFailed }
}

extension JWKError {
    public init(_ reason: String, fileID: String = #fileID, line: Int = #line) {
        self.init(.unusableKey, reason, fileID: fileID, line: line)
    }
}
