/// A failure whose error answer carries headers of the handler's own, on top of those the
/// runtime adds. The answer's code, message, status and exit are `error`'s, exactly as if it
/// had been thrown alone: only the headers are added. A typed handler gets this by answering
/// `TypedFunction.errorHeaders(for:)`; it need not throw it itself.
public struct ErrorWithHeaders: Error {
    public let error: any Error
    public let headers: [(String, String)]

    public init(_ error: any Error, headers: [(String, String)]) {
        self.error = error
        self.headers = headers
    }
}
