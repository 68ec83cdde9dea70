/// Apple's answer to `/auth/token`.
/// https://developer.apple.com/documentation/signinwithapplerestapi/tokenresponse
/// A refresh-token grant answers no new `refresh_token` and, sometimes, no `id_token`.
public struct TokenResponse: Codable, Sendable {
    public var accessToken: String?
    public var tokenType: String?
    public var expiresIn: Int?
    public var refreshToken: String?
    public var idToken: String?

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case tokenType = "token_type"
        case expiresIn = "expires_in"
        case refreshToken = "refresh_token"
        case idToken = "id_token"
    }

    public init(accessToken: String? = nil, tokenType: String? = nil, expiresIn: Int? = nil,
                refreshToken: String? = nil, idToken: String? = nil) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
        self.refreshToken = refreshToken
        self.idToken = idToken
    }
}
