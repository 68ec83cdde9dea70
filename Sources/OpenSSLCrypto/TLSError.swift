/// A TLS connection that could not be made or used.
///
/// `kind` is what the caller decides on: `.configuration` when no retry can help (the
/// server's certificate does not verify against our CAs or our name for it, the server
/// refused our client certificate, the peer does not speak TLS 1.2 or later, or our own
/// certificate, key or CA file does not load); `.unavailable` when the network or the
/// server failed (refused, reset, closed, timed out) and a later attempt may work.
/// `message` is for the log: OpenSSL's own reason and whose configuration is at fault. It
/// never holds key material.
public struct TLSError: Error, CustomStringConvertible, Equatable, Sendable {
    public enum Kind: Sendable, Equatable {
        case configuration
        case unavailable
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
