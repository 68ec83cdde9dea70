import Foundation
import Testing
import TestSupport

/// What can be checked of `infra/container/Containerfile` without a container engine (none runs
/// on the development machine): every COPY source exists after `make release`, every function
/// is copied and sent in the build context, the user is not root, the packages installed (with
/// what Debian's base image has) provide every library the release binaries load, and the entry
/// point exists and serves, run here outside an image.
@Suite("infra/container: the Containerfile's sources, user, libraries and entry point", .serialized)
struct ContainerImageTests {
    /// The release binaries: STOREKEEPER_BIN_DIR when it is a release build (make test-release,
    /// which builds them first: then every one must be there), else .build/release when it holds
    /// every function (an older release build, from before a function was added, is skipped).
    static let releaseFolder: URL? = {
        if FunctionBinary.isReleaseBuild { return FunctionBinary.binDirectory }
        let folder = FunctionBinary.repositoryRoot.appendingPathComponent(".build/release")
        let complete = deployed.allSatisfy { FileManager.default.isExecutableFile(atPath: folder.appendingPathComponent($0).path) }
        return complete ? folder : nil
    }()

    /// Every function but the developer's signing tool.
    static var deployed: [String] { FunctionBinary.functionNames.filter { $0 != "simulate-store" } }

    @Test("Every function is copied from the release folder, and the build context sends exactly those files")
    func copiesEveryFunction() throws {
        let file = try Containerfile()
        let bin = try #require(file.arguments["BIN"], "no ARG BIN")
        let binaries = try #require(file.copies.first { $0.destination == "/opt/storekeeper/bin/" })
        #expect(binaries.sources == Self.deployed.map { "\(bin)/\($0)" })
        let sent = try Containerfile.sentPaths()
        for (sources, _) in file.copies {
            for source in sources { #expect(sent.contains(source), "\(source) is not sent in the build context") }
        }
        #expect(Set(sent).count == file.copies.flatMap(\.sources).count, "the ignore file sends more than is copied: \(sent)")
        // The ARG names what `swift build -c release --show-bin-path` prints on this machine.
        let release = FunctionBinary.repositoryRoot.appendingPathComponent(".build/release").resolvingSymlinksInPath()
        let arch = try RenderedUnits.run("/usr/bin/uname", ["-m"], in: FileManager.default.temporaryDirectory).stdout
        #expect(bin.hasPrefix(".build/\(arch.trimmingCharacters(in: .whitespacesAndNewlines))-"), "\(bin)")
        if FileManager.default.fileExists(atPath: release.path) {
            #expect(release.path == FunctionBinary.repositoryRoot.appendingPathComponent(bin).path)
        }
    }

    @Test("After a release build every COPY source exists; the entry point is copied, executable, and the user is not root")
    func sourcesUserEntryPoint() throws {
        let file = try Containerfile()
        if Self.releaseFolder == nil {
            print("ContainerImageTests: no complete release build (make release): the binaries' COPY sources are checked by make test-release")
        }
        for (sources, _) in file.copies {
            for source in sources where Self.releaseFolder != nil || !source.hasPrefix(".build/") {
                #expect(FileManager.default.fileExists(atPath: FunctionBinary.repositoryRoot.appendingPathComponent(source).path),
                        "COPY source \(source) does not exist")
            }
        }
        let user = try #require(file.all("USER").last?.arguments)
        let uid = String(user.split(separator: ":").first ?? "")
        #expect(!["root", "0", ""].contains(uid), "USER \(user)")
        #expect(file.all("RUN").contains { $0.arguments.contains("useradd") && $0.arguments.contains("--uid \(uid)") }, "no user \(uid) is made")
        let entry = try #require(file.all("ENTRYPOINT").last?.arguments)
        let program = try #require(try JSONSerialization.jsonObject(with: Data(entry.utf8)) as? [String]).first ?? ""
        let copied = try #require(file.copies.first { $0.destination == program }, "ENTRYPOINT \(program) is not copied")
        let source = FunctionBinary.repositoryRoot.appendingPathComponent(copied.sources[0]).path
        #expect(FileManager.default.isExecutableFile(atPath: source))
        #expect(file.all("ENV").allSatisfy { !$0.arguments.contains("TOKEN") && !$0.arguments.contains("SECRET") && !$0.arguments.contains("KEY") })
        #expect(file.all("FROM").map(\.arguments) == ["debian:bookworm-slim"])
    }

    @Test("The packages installed, with the base image's, provide every library the release binaries load and every tool the entry point runs")
    func librariesAreInstalled() throws {
        guard let release = Self.releaseFolder else {
            print("ContainerImageTests: no complete release build (make release): libraries not checked here; make test-release checks them")
            return
        }
        let packages = try DebianPackages()
        let available = packages.closure(of: try Containerfile().packages + packages.essential)
        var libraries: Set<String> = []
        for name in Self.deployed {
            let ldd = try RenderedUnits.run("/usr/bin/ldd", [release.appendingPathComponent(name).path], in: FileManager.default.temporaryDirectory)
            #expect(ldd.termination == .exited(0), "ldd \(name): \(ldd)")
            libraries.formUnion(Self.paths(inLDD: ldd.stdout))
        }
        #expect(!libraries.contains { $0.contains("libcrypto") || $0.contains("libsqlite3") || $0.contains("libhiredis") },
                "the release binaries link these statically: \(libraries)")
        // dlopened, so ldd cannot see them: the names the fences load.
        for soname in try Self.dlopenedLibraries() { libraries.insert(try #require(try Self.resolve(soname), "\(soname) is not installed here")) }
        var tools: Set<String> = []  // kill is bash's builtin
        for tool in ["bash", "nginx", "spawn-fcgi", "jq", "ps", "tail", "sleep", "cat", "mkdir", "env"] {
            let found = try RenderedUnits.run("/bin/bash", ["-c", "command -v \(tool)"], in: FileManager.default.temporaryDirectory)
            tools.insert(try #require(found.stdout.split(separator: "\n").first.map(String.init), "\(tool) is not installed here"))
        }
        for path in libraries.union(tools).sorted() {
            let owner = try #require(try packages.owner(of: path), "no package owns \(path)")
            #expect(available.contains(owner), "\(path) comes from \(owner), which the image does not install")
        }
        print("ContainerImageTests: \(libraries.count) libraries and \(tools.count) tools, from \(Set(try libraries.union(tools).compactMap { try packages.owner(of: $0) }).sorted())")
    }

    static func paths(inLDD output: String) -> [String] {
        output.split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ").map(String.init)
            if let arrow = words.firstIndex(of: "=>"), arrow + 1 < words.count, words[arrow + 1].hasPrefix("/") { return words[arrow + 1] }
            return words.first.flatMap { $0.hasPrefix("/") ? $0.trimmingCharacters(in: .whitespaces) : nil }
        }
    }

    /// The sonames the C fences dlopen (`#define SK_..._LIBRARY "lib....so.N"` in their shims).
    static func dlopenedLibraries() throws -> [String] {
        try ["Sources/CCurl/shim.h", "Sources/CFastCGI/shim.h"].compactMap { shim in
            let text = try String(contentsOf: FunctionBinary.repositoryRoot.appendingPathComponent(shim), encoding: .utf8)
            let line = text.split(separator: "\n").first { $0.hasPrefix("#define SK_") && $0.contains("_LIBRARY \"") }
            return line.flatMap { $0.split(separator: "\"").dropFirst().first.map(String.init) }
        }
    }

    static func resolve(_ soname: String) throws -> String? {
        let cache = try RenderedUnits.run("/sbin/ldconfig", ["-p"], in: FileManager.default.temporaryDirectory).stdout
        let line = cache.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(soname + " ") }
        return line.flatMap { $0.components(separatedBy: "=> ").last }
    }
}
