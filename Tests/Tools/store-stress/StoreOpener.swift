import Glibc
import OpenSSLCrypto
import RedisStore
import SQLiteStore
import StorekeeperCore

/// Opens the store a `STORE_URL`-style locator names. One case per backend: adding one is
/// adding a case (e.g. `case "redis": return try RedisStore(url: locator)`).
enum StoreOpener {
    static func open(_ locator: String) throws(StoreError) -> any KeyValueStore {
        let scheme = locator.prefix { $0 != ":" }
        switch scheme {
        case "sqlite":
            // sqlite:<path>, or the URL spelling sqlite://<path> (sqlite:///abs/path).
            var path = locator.dropFirst("sqlite:".count)
            if path.hasPrefix("//") { path = path.dropFirst(2) }
            return try SQLiteStore(path: String(path))
        case "redis":
            // redis://[[user]:password@]host[:port][/db]
            return try RedisStore(url: locator)
        case "rediss":
            // The same over TLS, with the files named as the functions name them.
            let file = { (name: String) in getenv(name).map { String(cString: $0) } }
            return try RedisStore(url: locator, tls: TLSClientOptions(
                caFile: file("STORE_TLS_CA_FILE"), certificateFile: file("STORE_TLS_CERT_FILE"), keyFile: file("STORE_TLS_KEY_FILE")))
        default:
            throw StoreError(.invalidConfiguration, "unsupported store \(scheme): expected sqlite:<path>, redis:// or rediss://host:port/db")
        }
    }
}
