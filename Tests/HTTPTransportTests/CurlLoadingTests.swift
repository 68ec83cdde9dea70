import Foundation
@testable import HTTPTransport
import StorekeeperCore
import Testing

/// libcurl is loaded with dlopen by the first client, never linked: a function binary that
/// makes no HTTP call does not load it at start.
@Suite(.timeLimit(.minutes(1)))
struct CurlLoadingTests {
    /// The build products folder: the test bundle's, or STOREKEEPER_BIN_DIR when set.
    static let binDirectory: URL = {
        if let folder = ProcessInfo.processInfo.environment["STOREKEEPER_BIN_DIR"] {
            return URL(fileURLWithPath: folder)
        }
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: me).deletingLastPathComponent()
    }()

    @Test func binariesDoNotLinkLibcurlYetRequestsWork() throws {
        // A function binary whose composition root includes CurlHTTPClient, and this test
        // process, which sends requests through it below.
        let binary = Self.binDirectory.appendingPathComponent("verify-signed-data").path
        try #require(FileManager.default.isExecutableFile(atPath: binary),
                     "verify-signed-data is not built at \(binary): run swift build --build-tests")
        let me = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        for path in [binary, me] {
            let needed = try Self.neededLibraries(path)
            // The libraries every Swift binary here does link, so an empty or unread list
            // cannot pass for a clean one.
            #expect(needed.contains("libc.so.6"), "\(path): \(needed)")
            #expect(needed.contains("libcrypto.so.3"), "\(path): \(needed)")
            #expect(!needed.contains { $0.hasPrefix("libcurl") }, "\(path) links libcurl: \(needed)")
        }

        let server = try TestHTTPServer.plain.get()
        let response = try CurlHTTPClient().send(HTTPRequest(method: "GET", url: server.url("/status/200")))
        #expect(response.status == 200)
        // So the request went through the libcurl the client loaded itself.
        // Read to the end: String(contentsOfFile:) trusts the size stat gives (0 for /proc)
        // and stops early.
        let mapsFile = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/self/maps"))
        defer { try? mapsFile.close() }
        let maps = String(decoding: try mapsFile.readToEnd() ?? Data(), as: UTF8.self)
        #expect(maps.contains("/libcrypto.so.3"))  // linked: shows the whole list was read
        #expect(maps.contains("/libcurl.so.4"), "libcurl is not mapped after a request")
    }

    @Test func aMissingLibraryIsAnErrorNotACrash() {
        #expect {
            try Curl.load("libstorekeeper-no-such-library.so.1")
        } throws: { error in
            guard let error = error as? HTTPError else { return false }
            return error.kind == .failed
                && error.reason.hasPrefix("libcurl could not be loaded: ")
                && error.reason.contains("libstorekeeper-no-such-library.so.1")
        }
    }

    @Test func aLibraryWithoutCurlsFunctionsIsAnErrorNotACrash() {
        // zlib, which libcurl itself needs, so it is installed wherever libcurl is.
        #expect {
            try Curl.load("libz.so.1")
        } throws: { error in
            guard let error = error as? HTTPError else { return false }
            return error.kind == .failed && error.reason.contains("undefined symbol: curl_global_init")
        }
    }

    /// The DT_NEEDED entries of an ELF file, as `readelf -d` lists them. Output goes to a
    /// file, not a pipe (see FunctionBinary.run in FunctionTests for why).
    private static func neededLibraries(_ path: String) throws -> [String] {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("readelf-\(UUID().uuidString)")
        FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        let handle = try FileHandle(forWritingTo: output)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/readelf")
        process.arguments = ["-d", path]
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        process.waitUntilExit()
        try handle.close()
        let text = try String(contentsOf: output, encoding: .utf8)
        try #require(process.terminationStatus == 0, "readelf -d \(path) failed: \(text)")
        // " 0x0000000000000001 (NEEDED)  Shared library: [libc.so.6]"
        return text.split(separator: "\n").filter { $0.contains("(NEEDED)") }.compactMap { line in
            guard let open = line.lastIndex(of: "["), let close = line.lastIndex(of: "]"), open < close else {
                return nil
            }
            return String(line[line.index(after: open)..<close])
        }
    }
}
