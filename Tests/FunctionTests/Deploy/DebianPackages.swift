import Foundation

/// This machine's dpkg database (Debian bookworm, as the image's base): who owns a file, which
/// packages are Essential (in every Debian image, bookworm-slim too), and what a set of
/// packages pulls in through Depends and Pre-Depends.
struct DebianPackages {
    private var dependencies: [String: [String]] = [:]
    private(set) var essential: [String] = []

    init() throws {
        let folder = FileManager.default.temporaryDirectory
        let query = try RenderedUnits.run("/usr/bin/dpkg-query",
                                          ["-W", "-f", "${Package}\t${Essential}\t${Pre-Depends}, ${Depends}\n"], in: folder)
        for line in query.stdout.split(separator: "\n") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 3 else { continue }
            if fields[1] == "yes" { essential.append(fields[0]) }
            // "libc6 (>= 2.34), libgcc-s1 | foo" -> every alternative, without versions or ":any".
            dependencies[fields[0]] = fields[2].split(whereSeparator: { $0 == "," || $0 == "|" }).compactMap { part in
                part.trimmingCharacters(in: .whitespaces).split(separator: " ").first
                    .map { String($0.split(separator: ":").first ?? $0) }
            }
        }
    }

    /// `packages` and everything they depend on, as far as this machine knows them.
    func closure(of packages: [String]) -> Set<String> {
        var seen: Set<String> = [], queue = packages
        while let next = queue.popLast() {
            guard seen.insert(next).inserted else { continue }
            queue.append(contentsOf: dependencies[next] ?? [])
        }
        return seen
    }

    /// The package that installed `path` (`dpkg -S`), trying the /usr-merged twin of the path
    /// too (ldd says /lib/..., a package may list /usr/lib/..., or the other way round).
    func owner(of path: String) throws -> String? {
        let twin = path.hasPrefix("/usr/") ? String(path.dropFirst(4)) : "/usr" + path
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        for candidate in [path, twin, resolved] {
            let search = try RenderedUnits.run("/usr/bin/dpkg", ["-S", candidate], in: FileManager.default.temporaryDirectory)
            guard search.termination == .exited(0), let line = search.stdout.split(separator: "\n").first,
                  let colon = line.range(of: ": ") else { continue }
            return String(line[..<colon.lowerBound].split(separator: ":").first ?? "")
        }
        return nil
    }
}
