/// The process environment, read once at start-up and handed to the handler, so library
/// code never calls `getenv` and tests pass a dictionary. Settings are read through their
/// declarations (`value(_:)`, `required(_:)`), so each is parsed in one place.
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

    /// True when the setting is set (its default does not count).
    public func isSet<Value>(_ setting: Setting<Value>) -> Bool {
        optional(setting.name) != nil
    }

    /// The setting parsed from the environment, else its default, else nil; a configuration
    /// error naming it when the text does not parse.
    public func value<Value>(_ setting: Setting<Value>) throws -> Value? {
        guard let text = optional(setting.name) ?? setting.defaultText else { return nil }
        return try setting.parse(text)
    }

    /// The setting's value; a configuration error naming it when it is unset and has no
    /// default, or does not parse.
    public func required<Value>(_ setting: Setting<Value>) throws -> Value {
        guard let value = try value(setting) else {
            if case .requiredUnless(let other) = setting.declaration.requirement {
                throw FunctionError.configuration("\(setting.name) is not set (nor \(other))")
            }
            throw FunctionError.configuration("\(setting.name) is not set")
        }
        return value
    }
}
