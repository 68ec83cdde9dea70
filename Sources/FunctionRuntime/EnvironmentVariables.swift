/// The process environment, read once at start-up and handed to the handler, so library
/// code never calls `getenv` and tests pass a dictionary.
///
/// An empty value counts as unset: `FOO=` in a unit file or a CGI config usually means
/// "not configured", and a secret must never silently be the empty string.
public struct EnvironmentVariables: Sendable {
    public let values: [String: String]

    public init(_ values: [String: String]) {
        self.values = values
    }

    /// The variable's value, or nil when unset or empty.
    public func optional(_ name: String) -> String? {
        guard let value = values[name], !value.isEmpty else { return nil }
        return value
    }

    /// The variable's value; a configuration error (exit 78) naming it when unset or empty.
    public func required(_ name: String) throws -> String {
        guard let value = optional(name) else {
            throw FunctionError.configuration("\(name) is not set")
        }
        return value
    }

    /// The variable parsed by `transform`; a configuration error naming it when unset or
    /// when `transform` returns nil or throws. The value itself is never echoed: it may be a secret.
    public func required<T>(_ name: String, _ transform: (String) throws -> T?) throws -> T {
        let text = try required(name)
        guard let value = try? transform(text) else {
            throw FunctionError.configuration("\(name) has an invalid value")
        }
        return value
    }
}
