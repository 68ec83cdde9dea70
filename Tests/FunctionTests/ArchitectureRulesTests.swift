import Foundation
import Testing

/// The promises the README's Layout and Architecture sections make about the source tree,
/// checked on the files themselves so that they stay true as the code grows.
@Suite("Architecture: the layout keeps its promises")
struct ArchitectureRulesTests {
    /// Each C library has one system-library target and exactly one Swift module that imports
    /// it, with `internal import`, so no C type can reach a public signature.
    static let fences: [String: String] = [
        "COpenSSL": "OpenSSLCrypto",
        "CCurl": "HTTPTransport",
        "CSQLite": "SQLiteStore",
        "CHiredis": "RedisStore",
        "CFastCGI": "FastCGIServer",
    ]

    @Test func eachCLibraryIsImportedByItsOneFenceAndOnlyInternally() throws {
        for file in try SourceTree.swiftFiles(under: "Sources") {
            for line in file.lines {
                let words = line.split(separator: " ").map(String.init)
                guard let importIndex = words.firstIndex(of: "import"), importIndex + 1 < words.count else { continue }
                let module = words[importIndex + 1]
                guard let fence = Self.fences[module] else { continue }
                #expect(file.module == fence, "\(file.path) imports \(module); only \(fence) may")
                #expect(words.first == "internal", "\(file.path): `\(line)` must be an internal import")
            }
        }
    }

    /// The runtime (front doors, framing, logs) knows no adapter: the composition module
    /// builds the store and the HTTP client.
    @Test func theRuntimeImportsNoAdapter() throws {
        for file in try SourceTree.swiftFiles(under: "Sources/FunctionRuntime") {
            for module in ["SQLiteStore", "RedisStore", "HTTPTransport", "StorekeeperComposition"] {
                #expect(!file.imports(module), "\(file.path) imports \(module)")
            }
        }
    }

    /// A handler file reads in one sitting; the work lives in the core.
    @Test func noHandlerFileIsLongerThan150Lines() throws {
        for file in try SourceTree.swiftFiles(under: "Sources/StorekeeperFunctions") {
            let count = file.lines.last == "" ? file.lines.count - 1 : file.lines.count
            #expect(count <= 150, "\(file.path) has \(count) lines")
        }
    }

    @Test func noFunctionIsLongerThan60Lines() throws {
        for file in try SourceTree.swiftFiles(under: "Sources") {
            for function in file.functions() where function.lineCount > 60 {
                Issue.record("\(file.path):\(function.firstLine) \(function.name) has \(function.lineCount) lines")
            }
        }
    }

    /// Log lines are matched by machines: every event name is one snake_case word.
    @Test func everyLogEventIsSnakeCase() throws {
        let call = /(?:^|[^A-Za-z0-9_])log\.(?:debug|info|warning|error)\("([^"]*)"|(?:^|[^A-Za-z0-9_])log\.log\([a-z.]+, "([^"]*)"/
        var names = 0
        for file in try SourceTree.swiftFiles(under: "Sources") {
            for line in file.lines {
                for match in line.matches(of: call) {
                    let name = String(match.output.1 ?? match.output.2 ?? "")
                    names += 1
                    #expect(name.wholeMatch(of: /[a-z][a-z0-9]*(_[a-z0-9]+)*/) != nil, "\(file.path): log event `\(name)`")
                }
            }
        }
        #expect(names > 30, "the log calls were not found: \(names)")
    }
}

/// The Swift files of the repository, read as text.
enum SourceTree {
    struct File {
        /// Relative to the repository root: `Sources/OpenSSLCrypto/Certificate.swift`.
        let path: String
        let lines: [String]

        /// The target the file belongs to: the folder right under `Sources/`.
        var module: String { path.split(separator: "/").dropFirst().first.map(String.init) ?? "" }

        func imports(_ module: String) -> Bool {
            lines.contains { line in
                let words = line.split(separator: " ")
                return words.firstIndex(of: "import").map { $0 + 1 < words.count && words[$0 + 1] == module } ?? false
            }
        }

        struct Function {
            let name: String
            /// 1-based.
            let firstLine: Int
            let lineCount: Int
        }

        /// Every `func`, `init`, `deinit` and `subscript` with a body, measured from its
        /// declaration to its closing brace. Braces in string literals and comments do not count.
        func functions() -> [Function] {
            let declaration = /^\s*(?:@[A-Za-z]+(?:\([^)]*\))?\s+)*(?:(?:public|private|fileprivate|internal|package|static|final|override|mutating|nonisolated|convenience|required|class)\s+)*(func\s+[^\s(<]+|init[?!]?(?=[(<])|deinit\b|subscript\b)/
            let code = lines.map(Self.code)
            var found: [Function] = []
            for (index, line) in lines.enumerated() {
                guard let match = line.firstMatch(of: declaration) else { continue }
                var depth = 0
                var opened = false
                var end = index
                scan: while end < code.count {
                    for character in code[end] {
                        if character == "{" { depth += 1; opened = true }
                        if character == "}" { depth -= 1 }
                        if opened && depth == 0 { break scan }
                    }
                    // A requirement in a protocol has no body: give up after its signature.
                    if !opened && end > index + 10 { break }
                    end += 1
                }
                if opened {
                    found.append(Function(name: String(match.output.1), firstLine: index + 1, lineCount: end - index + 1))
                }
            }
            return found
        }

        /// The line without its string literals and its `//` comment.
        private static func code(_ line: String) -> String {
            var result = ""
            var inString = false
            var previous: Character = " "
            for character in line {
                if inString {
                    if character == "\"" && previous != "\\" { inString = false }
                } else if character == "\"" {
                    inString = true
                } else if character == "/" && previous == "/" {
                    result.removeLast()
                    break
                } else {
                    result.append(character)
                }
                previous = character
            }
            return result
        }
    }

    static func swiftFiles(under folder: String) throws -> [File] {
        let root = FunctionBinary.repositoryRoot
        let base = root.appendingPathComponent(folder)
        guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else {
            throw CocoaError(.fileReadNoSuchFile)
        }
        var files: [File] = []
        for case let url as URL in walker where url.pathExtension == "swift" {
            let text = try String(contentsOf: url, encoding: .utf8)
            let path = String(url.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count + 1))
            files.append(File(path: path, lines: text.components(separatedBy: "\n")))
        }
        #expect(!files.isEmpty, "no Swift files under \(folder)")
        return files.sorted { $0.path < $1.path }
    }
}
