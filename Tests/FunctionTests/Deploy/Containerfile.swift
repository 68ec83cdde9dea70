import Foundation

/// `infra/container/Containerfile` read as an engine reads it, for what can be checked without
/// one: ARG defaults, COPY sources and destinations, the packages installed, USER, ENTRYPOINT.
struct Containerfile {
    static let url = FunctionBinary.repositoryRoot.appendingPathComponent("infra/container/Containerfile")
    static let ignoreFile = FunctionBinary.repositoryRoot.appendingPathComponent("infra/container/Containerfile.dockerignore")

    /// One instruction, continuation lines joined, `${ARG}` expanded with its default.
    struct Instruction {
        var keyword: String
        var arguments: String
        var words: [String] { arguments.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init) }
    }

    var instructions: [Instruction] = []
    var arguments: [String: String] = [:]

    init() throws {
        let text = try String(contentsOf: Self.url, encoding: .utf8)
        var logical: [String] = [], current = ""
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = String(raw)
            if current.isEmpty && (line.trimmingCharacters(in: .whitespaces).hasPrefix("#") || line.trimmingCharacters(in: .whitespaces).isEmpty) { continue }
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("#") { continue }
            if line.hasSuffix("\\") { current += line.dropLast() + " "; continue }
            logical.append(current + line)
            current = ""
        }
        for line in logical {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard let space = trimmed.firstIndex(of: " ") else { continue }
            var rest = String(trimmed[trimmed.index(after: space)...]).trimmingCharacters(in: .whitespaces)
            for (name, value) in arguments { rest = rest.replacingOccurrences(of: "${\(name)}", with: value) }
            let keyword = trimmed[..<space].uppercased()
            if keyword == "ARG", let equals = rest.firstIndex(of: "=") {
                arguments[String(rest[..<equals])] = String(rest[rest.index(after: equals)...])
            }
            instructions.append(Instruction(keyword: keyword, arguments: rest))
        }
    }

    func all(_ keyword: String) -> [Instruction] { instructions.filter { $0.keyword == keyword } }

    /// Each COPY: its sources (relative to the build context, the repository root) and destination.
    var copies: [(sources: [String], destination: String)] {
        all("COPY").map { instruction in
            let words = instruction.words.filter { !$0.hasPrefix("--") }
            return (Array(words.dropLast()), words.last ?? "")
        }
    }

    /// The packages `apt-get install` names.
    var packages: [String] {
        all("RUN").flatMap { run -> [String] in
            let commands = run.arguments.components(separatedBy: "&&")
            return commands.filter { $0.contains("apt-get install") }.flatMap { command in
                command.components(separatedBy: "apt-get install").last!.split(separator: " ")
                    .map(String.init).filter { !$0.hasPrefix("-") && !$0.isEmpty }
            }
        }
    }

    /// The allowlist of the ignore file: the paths after `!`.
    static func sentPaths() throws -> [String] {
        try String(contentsOf: ignoreFile, encoding: .utf8).split(separator: "\n")
            .filter { $0.hasPrefix("!") }.map { String($0.dropFirst()) }
    }
}
