import FoundationEssentials
import FunctionRuntime
import Glibc
import OpenSSLCrypto
import StorekeeperCore

/// Which store a location names, for copy-store's refusal to copy a store onto itself and
/// for the progress it keeps (a cursor belongs to one source): an SQLite file by its real
/// path, a Redis database by host, port and database number (the credentials and the
/// scheme aside: `redis://` and `rediss://` to one port are one server). Two names of one
/// host (localhost and 127.0.0.1) are not recognised as one.
struct StoreIdentity: Equatable {
    let text: String

    init(_ location: StoreLocation) {
        switch location {
        case .sqlite(let path): text = "sqlite:" + Self.realPath(path)
        case .redis(let url): text = "redis:" + Self.server(url)
        }
    }

    /// What the saved progress names its source by: a digest, so no path or host is kept.
    var digest: String { Hex.encode(Digest.sha256(Array(text.utf8))) }

    /// What logs and answers may say about a store: its kind.
    static func kind(_ location: StoreLocation) -> String {
        switch location {
        case .sqlite: "sqlite"
        case .redis: "redis"
        }
    }

    /// The file's real path; a file not made yet, its folder's real path and its name.
    private static func realPath(_ path: String) -> String {
        if let resolved = resolve(path) { return resolved }
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        return (resolve(folder.isEmpty ? "/" : folder) ?? folder) + "/" + name
    }

    private static func resolve(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// host:port/db of `redis[s]://[[user]:password@]host[:port][/db]`, host in lower case.
    private static func server(_ url: String) -> String {
        let rest = url.split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false).dropFirst(2).first.map(String.init) ?? ""
        let afterCredentials = rest.lastIndex(of: "@").map { String(rest[rest.index(after: $0)...]) } ?? rest
        let address = afterCredentials.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        let hostPort = String(address.first ?? "")
        let database = address.count > 1 ? (Int(address[1]) ?? 0) : 0
        var host = hostPort
        var port = "6379"
        if hostPort.hasPrefix("["), let close = hostPort.firstIndex(of: "]") {
            host = String(hostPort[hostPort.index(after: hostPort.startIndex)..<close])
            let tail = hostPort[hostPort.index(after: close)...]
            if tail.hasPrefix(":") { port = String(tail.dropFirst()) }
        } else if let colon = hostPort.lastIndex(of: ":") {
            host = String(hostPort[..<colon])
            port = String(hostPort[hostPort.index(after: colon)...])
        }
        return "\(host.lowercased()):\(Int(port) ?? 6379)/\(database)"
    }
}
