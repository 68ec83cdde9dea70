/// Who may call a function over HTTP.
///
/// Internal functions need `Authorization: Bearer <STOREKEEPER_ADMIN_TOKEN>` when served over
/// HTTP (event or CGI); called directly in a shell pipe they need nothing, because whoever
/// can run the binary can already read its environment.
public enum Visibility: String, Sendable, Equatable {
    /// Apple or a browser calls it; no token.
    case `public`
    /// Your backend or an operator calls it; bearer token over HTTP.
    case `internal`
}
