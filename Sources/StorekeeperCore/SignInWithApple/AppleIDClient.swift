import FoundationEssentials

/// Apple's ID server over the `HTTPClient` port: `/auth/token` (authorization code and
/// refresh token grants), `/auth/revoke` and `/auth/keys`.
/// https://developer.apple.com/documentation/signinwithapplerestapi
///
/// Every call that authenticates takes a fresh client secret (`ClientSecret`). Nothing here
/// logs or keeps a token.
public struct AppleIDClient {
    public static let defaultBaseURL = "https://appleid.apple.com"

    /// Without a trailing slash: `https://appleid.apple.com`, or a fake on loopback in tests.
    public let baseURL: String
    private let http: () throws -> any HTTPClient

    public init(baseURL: String = Self.defaultBaseURL, http: @escaping () throws -> any HTTPClient) {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
        self.http = http
    }

    /// The authorize URL a browser is sent to (`response_mode=form_post` is required once a
    /// scope is asked for).
    public func authorizeURL(clientId: String, redirectURI: String, state: String, nonce: String,
                             scope: String = "name email") -> String {
        baseURL + "/auth/authorize?" + PercentEncoding.form([
            ("response_type", "code"),
            ("response_mode", "form_post"),
            ("client_id", clientId),
            ("redirect_uri", redirectURI),
            ("scope", scope),
            ("state", state),
            ("nonce", nonce),
        ])
    }

    /// `grant_type=authorization_code`. `redirectURI` is required for codes from the web flow
    /// and must be omitted for codes from a native app.
    public func exchange(code: String, clientId: String, clientSecret: String, redirectURI: String?) throws(AppleIDError) -> TokenResponse {
        var parameters = [
            ("client_id", clientId), ("client_secret", clientSecret),
            ("code", code), ("grant_type", "authorization_code"),
        ]
        if let redirectURI { parameters.append(("redirect_uri", redirectURI)) }
        return try token(parameters)
    }

    /// `grant_type=refresh_token`: proves the refresh token (and so the user's consent) is still valid.
    public func refresh(refreshToken: String, clientId: String, clientSecret: String) throws(AppleIDError) -> TokenResponse {
        try token([
            ("client_id", clientId), ("client_secret", clientSecret),
            ("grant_type", "refresh_token"), ("refresh_token", refreshToken),
        ])
    }

    /// Revokes a refresh (or access) token. Apple answers 200 with an empty body, also for a
    /// token that was already invalid.
    public func revoke(token: String, tokenTypeHint: String = "refresh_token", clientId: String, clientSecret: String) throws(AppleIDError) {
        _ = try post("/auth/revoke", [
            ("client_id", clientId), ("client_secret", clientSecret),
            ("token", token), ("token_type_hint", tokenTypeHint),
        ])
    }

    /// Apple's current signing keys.
    public func keys() throws(AppleIDError) -> JWKSet {
        let response = try send(HTTPRequest(method: "GET", url: baseURL + "/auth/keys", headers: [("Accept", "application/json")],
                                            timeout: .seconds(10), maximumResponseBytes: 1 << 20))
        guard response.status == 200 else { throw Self.failure(response) }
        do {
            return try JSONDecoder().decode(JWKSet.self, from: Data(response.body))
        } catch {
            throw AppleIDError(.invalidResponse, "/auth/keys did not answer a JWK set")
        }
    }

    private func token(_ parameters: [(String, String)]) throws(AppleIDError) -> TokenResponse {
        let body = try post("/auth/token", parameters)
        do {
            return try JSONDecoder().decode(TokenResponse.self, from: Data(body))
        } catch {
            throw AppleIDError(.invalidResponse, "/auth/token did not answer a token response")
        }
    }

    private func post(_ path: String, _ parameters: [(String, String)]) throws(AppleIDError) -> [UInt8] {
        let response = try send(HTTPRequest(
            method: "POST", url: baseURL + path,
            headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")],
            body: Array(PercentEncoding.form(parameters).utf8),
            timeout: .seconds(15), maximumResponseBytes: 1 << 20))
        guard response.status == 200 else { throw Self.failure(response) }
        return response.body
    }

    private func send(_ request: HTTPRequest) throws(AppleIDError) -> HTTPResponse {
        let client: any HTTPClient
        do {
            client = try http()
        } catch {
            throw AppleIDError(.unavailable, "no HTTP client: \(error)")
        }
        do {
            return try client.send(request)
        } catch {
            if error.isRetryable { throw AppleIDError(.unavailable, "Apple's ID server cannot be reached: \(error.reason)") }
            throw AppleIDError(.invalidResponse, "request to Apple's ID server failed: \(error.reason)")
        }
    }

    /// A non-200 answer as a typed error: 5xx and 429 are weather, an OAuth error body is Apple's word.
    static func failure(_ response: HTTPResponse) -> AppleIDError {
        if response.status >= 500 || response.status == 429 {
            return AppleIDError(.unavailable, "Apple's ID server answered HTTP \(response.status)")
        }
        struct OAuthError: Decodable {
            let error: String
            let error_description: String?
        }
        if let oauth = try? JSONDecoder().decode(OAuthError.self, from: Data(response.body)) {
            return .fromOAuth(oauth.error, description: oauth.error_description)
        }
        return AppleIDError(.invalidResponse, "Apple's ID server answered HTTP \(response.status) without an OAuth error")
    }
}
