internal import CCurl
import StorekeeperCore

/// libcurl, loaded into this process: the table its functions are called through, and the
/// one place CURLcodes are turned into errors.
///
/// Why it is loaded with dlopen rather than linked: each function binary is one process per
/// request, and a linked libcurl makes the dynamic loader map it and the ~28 libraries it
/// needs at every start (about 3.5-4 ms and 5 MB RSS), although most runs make no HTTP call.
/// So nothing links libcurl; the first `CurlHTTPClient` loads it (`shared()`), and a process
/// that never makes one never pays for it. A machine without libcurl then fails that
/// client's creation with an `HTTPError`, not the whole binary's start.
///
/// An instance exists only once libcurl is loaded and curl_global_init has succeeded; the
/// objects that call libcurl (`CurlEasy`, `CurlHeaderList`) hold one, so they cannot be made
/// before that.
// @unchecked Sendable: `api` is written once in `load`, before the instance exists, and only
// read afterwards; it is never freed, like the library it points into (never dlclosed).
final class Curl: @unchecked Sendable {
    /// The table every libcurl call goes through (the `sk_curl_*` wrappers in shim.h).
    let api: UnsafePointer<sk_curl_api>

    private init(api: UnsafePointer<sk_curl_api>) {
        self.api = api
    }

    /// Swift runs a static's initialiser once, atomically, on first use: libcurl is loaded
    /// and set up at most once per process, also when several threads make clients at once.
    /// A failure is kept and thrown to every later caller too.
    private static let loaded = Result { () throws(HTTPError) -> Curl in
        try load(SK_CURL_LIBRARY)
    }

    /// The process's libcurl, loaded by the first call. Call before the first curl_easy_init;
    /// cheap after the first time.
    static func shared() throws(HTTPError) -> Curl {
        try loaded.get()
    }

    /// Loads `library`, resolves the table and runs curl_global_init. Use `shared()`: this
    /// loads again on every call (tests call it with libraries that must fail).
    static func load(_ library: String) throws(HTTPError) -> Curl {
        let table = UnsafeMutablePointer<sk_curl_api>.allocate(capacity: 1)
        var reason = [CChar](repeating: 0, count: 512)
        guard sk_curl_load(library, table, &reason, reason.count) == 0 else {
            table.deallocate()  // sk_curl_load closed the library again
            let text = String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw HTTPError(.failed, "libcurl could not be loaded: \(text)")
        }
        let curl = Curl(api: table)
        do {
            try curl.check(sk_curl_global_init(curl.api, Int(CURL_GLOBAL_ALL)), "curl_global_init")
        } catch {
            throw error.httpError()
        }
        return curl
    }

    /// Every CURLcode goes through here. `errorBuffer` is the handle's CURLOPT_ERRORBUFFER,
    /// which often says more than the generic strerror text (the host, the TLS reason).
    func check(_ code: CURLcode, _ operation: @autoclosure () -> String,
               errorBuffer: UnsafePointer<CChar>? = nil) throws(CurlError) {
        guard code != CURLE_OK else { return }
        throw error(code, operation(), errorBuffer: errorBuffer)
    }

    /// The error for `code`; also used where libcurl signals failure with a NULL instead of
    /// a code (curl_easy_init, curl_slist_append).
    func error(_ code: CURLcode, _ operation: String, errorBuffer: UnsafePointer<CChar>? = nil) -> CurlError {
        let message = sk_curl_easy_strerror(api, code).map { String(cString: $0) } ?? "CURLcode \(code.rawValue)"
        let detail = errorBuffer.map { String(cString: $0) } ?? ""
        return CurlError(code: code, operation: operation, message: message, detail: detail)
    }
}
