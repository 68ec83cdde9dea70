internal import CCurl

/// Owns one CURL easy handle and its error buffer. Reused across requests: curl_easy_reset
/// clears the options but keeps the connection, DNS and TLS session caches, so a process
/// making many calls to one host reconnects rarely.
///
/// Not thread-safe (libcurl forbids using one handle from two threads at once); the owner
/// serialises access.
final class CurlEasy {
    /// The loaded libcurl every call goes through; also what a request's `CurlHeaderList` uses.
    let curl: Curl
    /// A `CURL *`, which Swift sees as a raw pointer (CURL is `void`).
    private let handle: UnsafeMutableRawPointer
    /// CURLOPT_ERRORBUFFER: libcurl writes the detailed reason for a failure here.
    private let errorBuffer: UnsafeMutablePointer<CChar>

    init(_ curl: Curl) throws(CurlError) {
        guard let handle = sk_curl_easy_init(curl.api) else { throw curl.error(CURLE_FAILED_INIT, "curl_easy_init") }
        self.curl = curl
        self.handle = handle
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        // Fully initialised here, so if this throws, deinit frees both.
        try reset()
    }

    deinit {
        sk_curl_easy_cleanup(curl.api, handle)
        errorBuffer.deallocate()
    }

    /// Back to libcurl's defaults (which also forgets the error buffer, so it is set again),
    /// keeping the caches. Also drops the previous transfer's borrowed pointers (header
    /// list, body, callback context), which may be gone by now.
    func reset() throws(CurlError) {
        sk_curl_easy_reset(curl.api, handle)
        errorBuffer[0] = 0
        try check(sk_curl_easy_setopt_pointer(curl.api, handle, CURLOPT_ERRORBUFFER, errorBuffer),
                  "CURLOPT_ERRORBUFFER")
    }

    func set(_ option: CURLoption, _ value: Int, _ name: @autoclosure () -> String) throws(CurlError) {
        try check(sk_curl_easy_setopt_long(curl.api, handle, option, value), name())
    }

    func set(_ option: CURLoption, size value: Int, _ name: @autoclosure () -> String) throws(CurlError) {
        try check(sk_curl_easy_setopt_off_t(curl.api, handle, option, curl_off_t(value)), name())
    }

    /// libcurl copies the string; nil restores the option's default (or disables it).
    func set(_ option: CURLoption, _ value: String?, _ name: @autoclosure () -> String) throws(CurlError) {
        let code: CURLcode
        if let value {
            code = sk_curl_easy_setopt_string(curl.api, handle, option, value)
        } else {
            code = sk_curl_easy_setopt_string(curl.api, handle, option, nil)
        }
        try check(code, name())
    }

    /// libcurl borrows `pointer` until the transfer ends or the handle is reset; the caller
    /// keeps whatever it points to alive that long.
    func set(_ option: CURLoption, borrowing pointer: UnsafeMutableRawPointer?, _ name: @autoclosure () -> String) throws(CurlError) {
        try check(sk_curl_easy_setopt_pointer(curl.api, handle, option, pointer), name())
    }

    /// libcurl borrows the list; the caller keeps `list` alive until the transfer ends.
    func set(_ option: CURLoption, borrowing list: CurlHeaderList, _ name: @autoclosure () -> String) throws(CurlError) {
        try check(sk_curl_easy_setopt_slist(curl.api, handle, option, list.pointer), name())
    }

    func set(_ option: CURLoption, callback: curl_write_callback, _ name: @autoclosure () -> String) throws(CurlError) {
        try check(sk_curl_easy_setopt_write_callback(curl.api, handle, option, callback), name())
    }

    /// Runs the transfer configured so far, blocking until it ends.
    func perform() throws(CurlError) {
        errorBuffer[0] = 0
        try check(sk_curl_easy_perform(curl.api, handle), "curl_easy_perform")
    }

    func info(_ info: CURLINFO, _ name: @autoclosure () -> String) throws(CurlError) -> Int {
        var value = 0
        try check(sk_curl_easy_getinfo_long(curl.api, handle, info, &value), name())
        return value
    }

    private func check(_ code: CURLcode, _ operation: @autoclosure () -> String) throws(CurlError) {
        try curl.check(code, operation(), errorBuffer: UnsafePointer(errorBuffer))
    }
}
