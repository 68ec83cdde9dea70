extension FunctionRequest {
    /// True when the caller may speak for a user: a direct request (a shell, cron: whoever
    /// runs the binary is trusted), or an HTTP request carrying
    /// `Authorization: Bearer <STOREKEEPER_ADMIN_TOKEN>` (your backend). A public function uses
    /// it for the fields an anonymous caller must not set.
    public func carriesAdminAuthorization(_ environment: EnvironmentVariables) -> Bool {
        guard frontDoor.isHTTP else { return true }
        guard let token = environment.optional(RuntimeVariable.adminToken) else { return false }
        return AdminAuthorization.accepts(header: header("authorization"), token: token)
    }
}
