extension FunctionRequest {
    /// True when the caller may speak for a user: a direct request (a shell, cron: whoever
    /// runs the binary is trusted), or an HTTP request carrying a bearer token of scope admin
    /// (`STOREKEEPER_ADMIN_TOKEN`, or an admin entry of `STOREKEEPER_TOKENS`: your backend).
    /// A public function uses it for the fields an anonymous caller must not set.
    public func carriesAdminAuthorization(_ environment: EnvironmentVariables) -> Bool {
        guard frontDoor.isHTTP else { return true }
        guard let tokens = try? AdminAuthorization.configuredTokens(environment) else { return false }
        return AdminAuthorization.caller(header: header("authorization"), among: tokens)?.scope == .admin
    }
}
