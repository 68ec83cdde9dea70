/// Where the FastCGI door's listening socket comes from.
public enum FastCGISource: Sendable, Equatable {
    /// File descriptor 0 is a listening socket, as spawn-fcgi, lighttpd's `bin-path` and
    /// systemd's `StandardInput=socket` hand it over.
    case standardInput
    /// `--fastcgi ADDRESS`: `host:port` or a Unix socket path, opened by the function itself.
    case address(String)
}
