internal import CCurl
import StorekeeperCore

/// A failed libcurl call: which call, its CURLcode, libcurl's text for the code and the
/// handle's error buffer. Internal: callers see `HTTPError`, built by `httpError`.
struct CurlError: Error, CustomStringConvertible {
    let code: CURLcode
    let operation: String
    /// curl_easy_strerror(code).
    let message: String
    /// The CURLOPT_ERRORBUFFER text; empty when libcurl left none.
    let detail: String

    var description: String {
        detail.isEmpty ? "\(operation): \(message)" : "\(operation): \(message) (\(detail))"
    }

    /// The port's error for this failure. Classified by the code, never by the text.
    func httpError() -> HTTPError {
        HTTPError(kind, description)
    }

    private var kind: HTTPError.Kind {
        switch code {
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL:
            return .invalidURL
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT,
             CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE,
             CURLE_PROXY:
            return .connectionFailed
        case CURLE_OPERATION_TIMEDOUT:
            return .timedOut
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM,
             CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ENGINE_NOTFOUND,
             CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED, CURLE_SSL_SHUTDOWN_FAILED,
             CURLE_SSL_CRL_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH,
             CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CLIENTCERT:
            return .tlsFailure
        case CURLE_FILESIZE_EXCEEDED:
            return .responseTooLarge
        default:
            return .failed
        }
    }
}
