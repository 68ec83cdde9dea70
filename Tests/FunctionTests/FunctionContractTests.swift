import Foundation
import Testing

/// Every function binary keeps the promises the README makes: `--help` tells everything
/// function.json says, and the binary does not drag in Foundation's ICU.
@Suite("Function binaries: contract and linkage")
struct FunctionContractTests {
    @Test(arguments: FunctionBinary.functionNames)
    func helpAgreesWithFunctionJSON(_ name: String) throws {
        let manifestURL = FunctionBinary.repositoryRoot.appendingPathComponent("functions/\(name)/function.json")
        let manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: manifestURL)) as? [String: Any])
        #expect(manifest["name"] as? String == name)
        #expect(!(manifest["purpose"] as? String ?? "").isEmpty)
        #expect(["public", "internal"].contains(manifest["visibility"] as? String ?? ""))

        let result = try FunctionBinary(name: name).run(stdin: Data(), arguments: ["--help"])
        #expect(result.exitCode == 0)
        let help = result.stdoutText
        #expect(help.contains(name))
        if let route = manifest["route"] as? String { #expect(help.contains(route)) }
        // The scope an internal function needs over HTTP, as the runtime enforces it.
        if let scope = manifest["scope"] as? String {
            #expect(manifest["visibility"] as? String == "internal", "\(name): a scope is for internal functions")
            #expect(help.contains("scope:       \(scope) "), "\(name): function.json says scope \(scope), --help does not")
        }
        let environment = manifest["environment"] as? [String: [String]] ?? [:]
        for variable in (environment["required"] ?? []) + (environment["optional"] ?? []) {
            #expect(help.contains(variable), "--help of \(name) does not mention \(variable)")
        }
    }

    @Test(arguments: FunctionBinary.functionNames)
    func missingConfigurationIsExit78NamingTheVariable(_ name: String) throws {
        let manifestURL = FunctionBinary.repositoryRoot.appendingPathComponent("functions/\(name)/function.json")
        let manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: manifestURL)) as? [String: Any])
        let required = (manifest["environment"] as? [String: [String]])?["required"] ?? []
        guard !required.isEmpty else { return }
        let result = try FunctionBinary(name: name).run(stdin: Data("{}".utf8))
        #expect(result.exitCode == 78)
        #expect(result.stdoutText.contains("configuration_error"))
        #expect(required.contains { result.stdoutText.contains($0) }, "stdout: \(result.stdoutText)")
    }

    /// Product code imports FoundationEssentials, never Foundation: no ICU, a small binary, a
    /// fast start. A dynamic build shows it in `ldd`; a static one in its symbol table (a
    /// release binary has none, being stripped: the debug run of this test guards that).
    @Test(arguments: FunctionBinary.functionNames)
    func doesNotLinkFoundationOrICU(_ name: String) throws {
        let binary = FunctionBinary(name: name).url.path
        let forbidden = ["libFoundation.so", "libFoundationInternationalization", "lib_FoundationICU", "libicu"]
        let ldd = try run("/usr/bin/ldd", [binary])
        for library in forbidden {
            #expect(!ldd.contains(library), "\(name) links \(library)")
        }
        let symbols = try run("/usr/bin/nm", ["--defined-only", binary])
        #expect(!symbols.contains("ucol_open"), "\(name) carries ICU collation symbols")
        #expect(!symbols.contains("FoundationInternationalization"), "\(name) carries FoundationInternationalization")
    }

    /// A release build (what `make release` builds and the README says to deploy) carries
    /// libcrypto, libssl (rediss://), SQLite, hiredis and the C++ standard library (which the Swift runtime needs)
    /// inside it, so the dynamic loader maps none of them at
    /// start, and keeps the static OpenSSL's symbols to itself: libcurl, loaded on first use,
    /// brings libcrypto.so.3, whose references must not bind to the executable's copy. A
    /// debug build links the shared libraries, and says so in `ldd`. libcurl is never
    /// linked: it is loaded with dlopen when a function first makes an HTTP call.
    @Test(arguments: FunctionBinary.functionNames)
    func linksTheCLibrariesAsItsBuildPromises(_ name: String) throws {
        let binary = FunctionBinary(name: name).url.path
        let ldd = try run("/usr/bin/ldd", [binary])
        #expect(ldd.contains("libc.so"), "ldd did not run on \(binary): \(ldd)")
        #expect(!ldd.contains("libcurl"), "\(name) links libcurl")
        let libraries = ["libcrypto", "libssl", "libsqlite3", "libhiredis", "libstdc++"]
        guard FunctionBinary.isReleaseBuild else {
            #expect(ldd.contains("libcrypto") && ldd.contains("libssl"), "a debug \(name) links the shared libcrypto and libssl")
            return
        }
        for library in libraries {
            #expect(!ldd.contains(library), "release \(name) loads \(library) dynamically")
        }
        let exported = try run("/usr/bin/nm", ["-D", "--defined-only", binary])
        for prefix in [" EVP_", " OPENSSL_", " X509_", " SSL_", " TLS_", " sqlite3_", " redis"] {
            #expect(!exported.contains(prefix), "release \(name) exports\(prefix)* symbols")
        }
    }

    /// Output through a file, not a pipe (see FunctionBinary.run for why).
    private func run(_ tool: String, _ arguments: [String]) throws -> String {
        let outputURL = FileManager.default.temporaryDirectory.appendingPathComponent("tool-\(UUID().uuidString)")
        FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: outputURL) }
        let output = try FileHandle(forWritingTo: outputURL)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        try? output.close()
        process.waitUntilExit()
        return String(decoding: try Data(contentsOf: outputURL), as: UTF8.self)
    }
}
