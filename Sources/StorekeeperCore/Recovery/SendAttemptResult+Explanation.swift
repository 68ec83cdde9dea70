/// What each of Apple's `sendAttemptResult` values means for the operator reading a recovery
/// report: one line each, pointing at what to fix.
public enum SendAttemptExplanation {
    public static func explain(_ result: String) -> String {
        switch result {
        case "SUCCESS": "Apple delivered it and your server answered 2xx."
        case "TIMED_OUT": "Your server did not answer in time: check that receive-notification answers fast and the host was up."
        case "TLS_ISSUE", "SSL_ISSUE": "TLS failed: check the certificate chain, its expiry and TLS 1.2+ on the notification URL."
        case "CIRCULAR_REDIRECT": "The notification URL redirects in a loop: Apple does not follow redirects, use the final URL."
        case "NO_RESPONSE": "The connection closed without an answer: check the web server and any proxy in front of it."
        case "SOCKET_ISSUE": "Apple could not connect: check DNS, the firewall and that the port is open to Apple's servers."
        case "UNSUPPORTED_CHARSET": "Your server's answer declared a charset Apple does not accept: answer UTF-8."
        case "INVALID_RESPONSE": "Your server answered with something Apple could not read as HTTP."
        case "PREMATURE_CLOSE": "The connection closed before the answer was complete: check timeouts in the web server or proxy."
        case "UNSUCCESSFUL_HTTP_RESPONSE_CODE": "Your server answered a non-2xx status: check the receive-notification logs (a 503 means the store was down)."
        case "OTHER": "Apple reports another failure: retry a test notification and look at the server's access log."
        default: "A result this version does not know: see Apple's SendAttemptResult documentation."
        }
    }
}
