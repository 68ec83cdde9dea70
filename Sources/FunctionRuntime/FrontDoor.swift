/// How a request reached the function. Handlers rarely need it: the runtime has already
/// removed the envelope, checked the method and the bearer token.
public enum FrontDoor: String, Sendable, Equatable {
    /// stdin held the function's own JSON request (a shell pipe or cron); one per line for NDJSON.
    case direct
    /// stdin held an HTTP event in "payload format 2.0".
    case httpEvent = "http-event"
    /// A web server ran the binary as CGI (`GATEWAY_INTERFACE` set).
    case cgi
    /// A FastCGI server (libfcgi): stdin was a listening socket, or `--fastcgi ADDRESS` opened
    /// one; one process answers request after request.
    case fastcgi

    /// True for the doors that carry an HTTP request (method, headers, bearer token).
    public var isHTTP: Bool { self != .direct }
}
