import Foundation
import FunctionRuntime
import StorekeeperFunctions
import Testing

/// The settings table is the one place a setting is declared: `--help` lists only declared
/// settings, each function.json says exactly what `--help` says, and the README's table is
/// the table.
@Suite("Settings table: --help, function.json and the README agree with it")
struct SettingsTableTests {
    /// The runtime adds these to every function's `--help`; a function.json lists them only
    /// when the function reads one itself (migrate-receipt's admin token).
    private static let runtimeAdded: Set<String> = [
        RuntimeSettings.adminToken.name, RuntimeSettings.tokens.name, RuntimeSettings.logLevel.name, RuntimeSettings.fixedTime.name,
    ]

    /// The README's table, rendered from the declarations.
    static var readmeTable: String {
        var lines = ["| Variable | Declared | Secret | Meaning |", "|---|---|---|---|"]
        for setting in StorekeeperSettings.all {
            let requirement = switch setting.requirement {
            case .required: "required"
            case .optional: "optional"
            case .requiredUnless(let other): "required unless \(other)"
            }
            lines.append("| `\(setting.name)` | \(requirement) | \(setting.isSecret ? "yes" : "no") | \(setting.help.replacingOccurrences(of: "|", with: "\\|")) |")
        }
        return lines.joined(separator: "\n")
    }

    @Test func eachSettingIsDeclaredOnceAndSecretsComeOnlyFromTheEnvironment() {
        let names = StorekeeperSettings.all.map(\.name)
        #expect(Set(names).count == names.count, "declared twice: \(names.filter { name in names.filter { $0 == name }.count > 1 })")
        for setting in StorekeeperSettings.all where setting.isSecret {
            #expect(setting.sources == [.environment], "\(setting.name) is a secret and may come from elsewhere")
        }
        for setting in StorekeeperSettings.all {
            #expect(!setting.help.isEmpty, "\(setting.name) has no help line")
        }
    }

    @Test func theREADMETableIsTheSettingsTable() throws {
        let readme = try String(contentsOf: FunctionBinary.repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let begin = "<!-- settings table: generated from StorekeeperSettings.all, checked by SettingsTableTests -->\n"
        let start = try #require(readme.range(of: begin), "README has no settings table")
        let end = try #require(readme.range(of: "\n<!-- end of settings table -->", range: start.upperBound..<readme.endIndex))
        let table = String(readme[start.upperBound..<end.lowerBound])
        #expect(table == Self.readmeTable, "README's settings table drifted; it should read:\n\(Self.readmeTable)")
    }

    @Test(arguments: FunctionBinary.functionNames)
    func helpListsDeclaredSettingsExactlyAsFunctionJSONDoes(_ name: String) throws {
        let manifestURL = FunctionBinary.repositoryRoot.appendingPathComponent("functions/\(name)/function.json")
        let manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: manifestURL)) as? [String: Any])
        let environment = manifest["environment"] as? [String: [String]] ?? [:]
        let listedRequired = Set(environment["required"] ?? [])
        let listedOptional = Set(environment["optional"] ?? [])

        let help = try FunctionBinary(name: name).run(stdin: Data(), arguments: ["--help"]).stdoutText
        let lines = help.components(separatedBy: "\n")
        let first = try #require(lines.firstIndex(of: "environment:"))
        // "  NAME<padding>  (required)  meaning"
        let entries = lines[(first + 1)...].prefix { $0.hasPrefix("  ") }.map { line -> [String] in
            let trimmed = line.drop { $0 == " " }
            let variable = trimmed.prefix { $0 != " " }
            return [String(variable), String(trimmed.dropFirst(variable.count).drop { $0 == " " })]
        }
        let declared = Set(StorekeeperSettings.all.map(\.name))
        var required: Set<String> = []
        var optional: Set<String> = []
        for entry in entries where entry.count >= 2 {
            #expect(declared.contains(entry[0]), "\(name) --help lists \(entry[0]), which the settings table does not declare")
            if entry[1].hasPrefix("(required") { required.insert(entry[0]) } else { optional.insert(entry[0]) }
        }
        #expect(required == listedRequired, "\(name): required in --help \(required.sorted()), in function.json \(listedRequired.sorted())")
        let ownOptional = optional.filter { !Self.runtimeAdded.contains($0) || listedOptional.contains($0) }
        #expect(ownOptional == listedOptional, "\(name): optional in --help \(ownOptional.sorted()), in function.json \(listedOptional.sorted())")
    }
}
