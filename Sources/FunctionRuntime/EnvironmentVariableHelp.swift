/// One environment variable a function reads, as listed by `--help`.
public struct EnvironmentVariableHelp: Sendable, Equatable {
    public var name: String
    /// True when the function refuses to start without it (exit 78).
    public var required: Bool
    public var meaning: String

    public init(name: String, required: Bool, meaning: String) {
        self.name = name
        self.required = required
        self.meaning = meaning
    }

    /// A variable without which the function refuses to start (exit 78).
    public static func required(_ name: String, _ meaning: String) -> EnvironmentVariableHelp {
        EnvironmentVariableHelp(name: name, required: true, meaning: meaning)
    }

    /// A variable with a documented default.
    public static func optional(_ name: String, _ meaning: String) -> EnvironmentVariableHelp {
        EnvironmentVariableHelp(name: name, required: false, meaning: meaning)
    }
}
