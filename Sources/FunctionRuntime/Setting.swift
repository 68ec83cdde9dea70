/// One setting's declaration: its name, whether a function may start without it, whether
/// its value is a secret, where it may come from and the help line `--help`, the README
/// table and each function.json are checked against. `Setting` adds the parser.
public struct SettingDeclaration: Sendable, Equatable {
    public let name: String
    public let requirement: SettingRequirement
    /// A secret's value is never echoed in an error or a log, and it comes from the
    /// environment only (never from the catalog file).
    public let isSecret: Bool
    public let sources: [SettingSource]
    public let help: String
}

/// Whether a function may start without a setting.
public enum SettingRequirement: Sendable, Equatable {
    case required
    case optional
    /// Required unless the named setting is present (a catalog names the apps, so
    /// `APPSTORE_BUNDLE_ID` is then not needed).
    case requiredUnless(String)
}

/// Where a setting's value may come from.
public enum SettingSource: Sendable, Equatable {
    /// The process environment: every setting may come from it, and secrets only from it.
    case environment
    /// A section of the catalog file (`STOREKEEPER_CATALOG`), by its key.
    case catalogSection(String)
}

/// What a parser says is wrong with a value, without the setting's name (the reader adds
/// it) and, for a secret, without the value.
public struct SettingProblem: Error, Sendable {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}

/// A typed setting: the declaration and the one parser that turns its text into a value.
/// Read it with `EnvironmentVariables.value(_:)` or `required(_:)`.
public struct Setting<Value>: Sendable {
    public let declaration: SettingDeclaration
    /// The text used when the setting is unset, parsed like any other (nil: no default).
    public let defaultText: String?
    private let parser: @Sendable (String) throws(SettingProblem) -> Value

    public var name: String { declaration.name }

    public init(_ name: String, _ requirement: SettingRequirement, secret: Bool = false,
                sources: [SettingSource] = [.environment], default defaultText: String? = nil, help: String,
                parse: @escaping @Sendable (String) throws(SettingProblem) -> Value) {
        declaration = SettingDeclaration(name: name, requirement: requirement, isSecret: secret, sources: sources, help: help)
        self.defaultText = defaultText
        parser = parse
    }

    /// The value `text` stands for; a configuration error (exit 78) naming the setting
    /// otherwise, which repeats a secret's value never.
    public func parse(_ text: String) throws(FunctionError) -> Value {
        do {
            return try parser(text)
        } catch {
            if declaration.isSecret && error.description.contains(text) {
                throw FunctionError.configuration("\(name) has an invalid value")
            }
            throw FunctionError.configuration("\(name) \(error.description)")
        }
    }
}

extension Setting where Value == String {
    /// Any text (empty counts as unset).
    public static func text(_ name: String, _ requirement: SettingRequirement, secret: Bool = false,
                            default defaultText: String? = nil, help: String) -> Setting<String> {
        Setting(name, requirement, secret: secret, default: defaultText, help: help) { $0 }
    }

    /// An http(s) URL.
    public static func httpURL(_ name: String, help: String) -> Setting<String> {
        Setting(name, .optional, help: help) { text throws(SettingProblem) in
            guard text.hasPrefix("https://") || text.hasPrefix("http://") else { throw SettingProblem("must be an http(s) URL") }
            return text
        }
    }
}

extension Setting where Value == [String] {
    /// A comma-separated list, each item trimmed of spaces; one that names nothing is refused.
    public static func list(_ name: String, _ requirement: SettingRequirement, of noun: String,
                            default defaultText: String? = nil, help: String) -> Setting<[String]> {
        Setting(name, requirement, default: defaultText, help: help) { text throws(SettingProblem) in
            let items = text.split(separator: ",").map { $0.trimmedOfSpaces }.filter { !$0.isEmpty }
            guard !items.isEmpty else { throw SettingProblem("names no \(noun)") }
            return items
        }
    }
}

extension Setting where Value == Double {
    /// A number above 0 and at most `maximum` (seconds, requests per second).
    public static func positiveNumber(_ name: String, default defaultValue: Int, maximum: Int, help: String) -> Setting<Double> {
        Setting(name, .optional, default: String(defaultValue), help: help) { text throws(SettingProblem) in
            guard let number = Double(text), number > 0, number <= Double(maximum) else {
                throw SettingProblem("must be a number above 0 and at most \(maximum)")
            }
            return number
        }
    }
}

extension Substring {
    /// Settings are comma-separated lists typed by people: " Sandbox" means "Sandbox".
    /// By index, not with `reversed()`: the generic ReversedCollection types are made at run
    /// time, and each first use cost a fresh process about 270k instructions.
    public var trimmedOfSpaces: String {
        func isSpace(_ character: Character) -> Bool { character == " " || character == "\t" }
        var start = startIndex
        var end = endIndex
        while start < end, isSpace(self[start]) { start = index(after: start) }
        while end > start, isSpace(self[index(before: end)]) { end = index(before: end) }
        return String(self[start..<end])
    }
}
