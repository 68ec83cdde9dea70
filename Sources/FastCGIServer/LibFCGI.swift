internal import CFastCGI

/// libfcgi, loaded into this process: the table its functions are called through.
///
/// Loaded with dlopen, not linked: most runs of a function binary are CGI, a pipe or cron,
/// and never speak FastCGI, so they must not pay for mapping the library at start. The first
/// `FastCGIListener` loads it (`shared()`); a machine without libfcgi then fails that
/// listener's creation with a `FastCGIError`, not every start of the binary.
// @unchecked Sendable: `api` is written once in `load`, before the instance exists, and only
// read afterwards; it is never freed, like the library it points into (never dlclosed).
final class LibFCGI: @unchecked Sendable {
    let api: UnsafePointer<sk_fcgi_api>

    private init(api: UnsafePointer<sk_fcgi_api>) {
        self.api = api
    }

    /// Swift runs a static's initialiser once, atomically: loaded and initialised at most
    /// once per process. A failure is kept and thrown to every later caller too.
    private static let loaded = Result { () throws(FastCGIError) -> LibFCGI in
        try load(SK_FCGI_LIBRARY)
    }

    static func shared() throws(FastCGIError) -> LibFCGI {
        try loaded.get()
    }

    private static func load(_ library: String) throws(FastCGIError) -> LibFCGI {
        let table = UnsafeMutablePointer<sk_fcgi_api>.allocate(capacity: 1)
        var reason = [CChar](repeating: 0, count: 512)
        guard sk_fcgi_load(library, table, &reason, reason.count) == 0 else {
            table.deallocate()  // sk_fcgi_load closed the library again
            let text = String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw FastCGIError("load libfcgi", text)
        }
        // FCGX_Init reads FCGI_WEB_SERVER_ADDRS once (the addresses allowed to connect over TCP).
        let status = table.pointee.initialize()
        guard status == 0 else {
            throw FastCGIError("FCGX_Init", "libfcgi did not initialise", errorNumber: status)
        }
        return LibFCGI(api: table)
    }
}
