/// For a function that signs its visitors in itself (`FunctionDescriptor.signsInItself`):
/// the deployment's tokens, a typed-in token checked as the bearer check does, and the
/// secret material a signed cookie's key is derived from (so every token change, a token
/// revoked, invalidates every cookie).
public enum SignInTokens {
    /// `STOREKEEPER_ADMIN_TOKEN` and `STOREKEEPER_TOKENS`; nil when neither is set.
    public static func configured(_ environment: EnvironmentVariables) throws(FunctionError) -> [NamedToken]? {
        try AdminAuthorization.configuredTokens(environment)
    }

    /// Who `token` names among `tokens`, compared in constant time as a bearer header is.
    public static func caller(token: String, among tokens: [NamedToken]) -> Caller? {
        AdminAuthorization.caller(header: "Bearer " + token, among: tokens)
    }

    /// Every token's name, scope and bytes, each field length-prefixed; never logged.
    public static func keyMaterial(_ tokens: [NamedToken]) -> [UInt8] {
        var material: [UInt8] = []
        for token in tokens {
            for field in [Array(token.name.utf8), Array(token.scope.rawValue.utf8), token.bytes] {
                let count = UInt32(field.count)
                material += [UInt8(count >> 24 & 0xff), UInt8(count >> 16 & 0xff), UInt8(count >> 8 & 0xff), UInt8(count & 0xff)]
                material += field
            }
        }
        return material
    }
}
