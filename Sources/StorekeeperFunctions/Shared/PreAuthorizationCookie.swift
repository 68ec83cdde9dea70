import FunctionRuntime
import StorekeeperCore

/// The pre-authorization cookie that binds a web sign-in to the browser that started it:
/// `siwa-start` sets it, `siwa-callback` checks it against the state and clears it.
enum PreAuthorizationCookie {
    /// `__Host-`: the browser takes it only Secure, from this host, with Path=/, so a sibling
    /// subdomain cannot plant its own value (the login-CSRF attacker's first move).
    static let name = "__Host-storekeeper_siwa"

    /// SameSite=None because Apple's form_post is a cross-site POST: a Lax or Strict cookie
    /// would not come back with it. Lives as long as the state it stands for.
    static func setting(_ secret: String) -> String {
        "\(name)=\(secret); Path=/; Max-Age=\(AuthorizationStateRepository.lifetime.components.seconds); HttpOnly; Secure; SameSite=None"
    }

    /// Tells the browser to drop it (same name, path and attributes, so it replaces that cookie).
    static let clearing = "\(name)=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=None"

    /// The cookie's value in the request's `Cookie` header; nil when it is absent, empty, or
    /// present more than once (this host sets one; a second can only come from elsewhere,
    /// and picking one of two would let the stranger's win).
    static func value(in request: FunctionRequest) -> String? {
        guard let header = request.header("cookie") else { return nil }
        var found: [Substring] = []
        for pair in header.split(separator: ";") {
            let trimmed = pair.trimmedOfSpaces
            guard let equals = trimmed.firstIndex(of: "="), trimmed[..<equals] == name else { continue }
            found.append(trimmed[trimmed.index(after: equals)...])
        }
        guard found.count == 1, let only = found.first, !only.isEmpty else { return nil }
        return String(only)
    }
}
