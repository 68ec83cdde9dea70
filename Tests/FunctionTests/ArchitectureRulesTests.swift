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
}

/// The Swift files of the repository, read as text.
enum SourceTree {
    struct File {
        /// Relative to the repository root: `Sources/OpenSSLCrypto/Certificate.swift`.
        let path: String
        let lines: [String]

        /// The target the file belongs to: the folder right under `Sources/`.
        var module: String { path.split(separator: "/").dropFirst().first.map(String.init) ?? "" }
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
