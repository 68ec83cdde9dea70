internal import CCurl

/// Owns one curl_slist: the request header lines handed to CURLOPT_HTTPHEADER. libcurl
/// borrows the list, so it must outlive the transfer that uses it.
final class CurlHeaderList {
    private let curl: Curl
    private(set) var pointer: UnsafeMutablePointer<curl_slist>?

    init(_ curl: Curl) {
        self.curl = curl
    }

    deinit { sk_curl_slist_free_all(curl.api, pointer) }

    /// libcurl copies `line`. On failure curl_slist_append returns NULL and leaves the old
    /// list intact, so the pointer is only replaced on success.
    func append(_ line: String) throws(CurlError) {
        guard let appended = sk_curl_slist_append(curl.api, pointer, line) else {
            throw curl.error(CURLE_OUT_OF_MEMORY, "curl_slist_append")
        }
        pointer = appended
    }
}
