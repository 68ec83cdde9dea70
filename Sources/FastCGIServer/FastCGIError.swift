/// A FastCGI server failure: libfcgi could not be loaded, a socket could not be opened, or a
/// connection failed mid-request. `errorNumber` is errno (or libfcgi's own negative code)
/// when there is one.
public struct FastCGIError: Error, CustomStringConvertible, Sendable {
    public let operation: String
    public let reason: String
    public let errorNumber: Int32?

    init(_ operation: String, _ reason: String, errorNumber: Int32? = nil) {
        self.operation = operation
        self.reason = reason
        self.errorNumber = errorNumber
    }

    public var description: String {
        "\(operation): \(reason)" + (errorNumber.map { " (\($0))" } ?? "")
    }
}
