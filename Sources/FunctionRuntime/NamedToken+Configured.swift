/// The deployment's tokens as the runtime reads them, for `doctor`'s check: the same parser
/// and the same set rules, so the doctor never approves what the runtime then refuses.
extension NamedToken {
    /// The shortest token `STOREKEEPER_TOKENS` accepts (the doctor holds the admin token to it).
    public static var shortestAccepted: Int { minimumLength }

    /// STOREKEEPER_ADMIN_TOKEN and STOREKEEPER_TOKENS, checked together; nil when neither is
    /// set; a configuration error naming the variable, never a value, when one does not parse.
    public static func configured(in environment: EnvironmentVariables) throws(FunctionError) -> [NamedToken]? {
        try AdminAuthorization.configuredTokens(environment)
    }
}
