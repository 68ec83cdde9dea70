import StorekeeperCore

/// Where the key-value store lives, from `STORE_URL` (`RuntimeSettings.storeURL`):
/// `sqlite:<path>` (the embedded default, `sqlite:var/storekeeper.db`) or
/// `redis://[[user]:password@]host[:port][/db]`, or `rediss://` in the same forms for TLS.
///
/// Parsed once at start-up; a malformed value is a configuration error (exit 78) naming the
/// variable, never a guess.
public enum StoreLocation: Equatable, Sendable {
    case sqlite(path: String)
    case redis(url: String)

    public init(parsing text: String) throws(SettingProblem) {
        if text.hasPrefix("sqlite:") {
            var path = String(text.dropFirst("sqlite:".count))
            // Accept the URL spelling too: sqlite:///abs/path and sqlite://rel/path.
            if path.hasPrefix("//") { path = String(path.dropFirst(2)) }
            guard !path.isEmpty, !path.contains("\u{0}") else {
                throw SettingProblem("must name a file: sqlite:<path>")
            }
            self = .sqlite(path: path)
        } else if let scheme = ["redis://", "rediss://"].first(where: { text.hasPrefix($0) }) {
            guard text.count > scheme.count else {
                throw SettingProblem("must name a host: \(scheme)host:port/db")
            }
            self = .redis(url: text)
        } else {
            throw SettingProblem("must start with sqlite:, redis:// or rediss:// (got an unsupported scheme)")
        }
    }

    /// How the location is shown in logs: a Redis password never appears.
    public var redacted: String {
        switch self {
        case .sqlite(let path):
            return "sqlite:\(path)"
        case .redis(let url):
            guard let at = url.lastIndex(of: "@") else { return url }
            return (url.hasPrefix("rediss://") ? "rediss://" : "redis://") + "[credentials]" + url[at...]
        }
    }
}
