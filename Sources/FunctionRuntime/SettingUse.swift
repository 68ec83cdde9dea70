/// A setting as one function uses it, as `--help` lists it: the declaration, whether this
/// function refuses to start without it, and what it means here beyond its help line.
public struct SettingUse: Sendable, Equatable {
    public let declaration: SettingDeclaration
    public let requirement: SettingRequirement
    /// This function's remark, appended to the declaration's help line.
    public let note: String?

    public init(declaration: SettingDeclaration, requirement: SettingRequirement, note: String? = nil) {
        self.declaration = declaration
        self.requirement = requirement
        self.note = note
    }

    public var name: String { declaration.name }
    public var meaning: String { note.map { "\(declaration.help); \($0)" } ?? declaration.help }

    /// As declared.
    public static func declared<Value>(_ setting: Setting<Value>, _ note: String? = nil) -> SettingUse {
        SettingUse(declaration: setting.declaration, requirement: setting.declaration.requirement, note: note)
    }

    /// Required by this function whatever the declaration says (exit 78 without it).
    public static func required<Value>(_ setting: Setting<Value>, _ note: String? = nil) -> SettingUse {
        SettingUse(declaration: setting.declaration, requirement: .required, note: note)
    }

    /// Optional for this function whatever the declaration says.
    public static func optional<Value>(_ setting: Setting<Value>, _ note: String? = nil) -> SettingUse {
        SettingUse(declaration: setting.declaration, requirement: .optional, note: note)
    }

    /// How `--help` marks it.
    public var marker: String {
        switch requirement {
        case .required: "(required)"
        case .optional: "(optional)"
        case .requiredUnless(let other): "(required unless \(other) is set)"
        }
    }
}
