import FunctionRuntime

/// Where `copy-store` copies the store to.
extension StorekeeperSettings {
    /// Secret: a Redis URL carries a password. Parsed as STORE_URL is.
    static let copyTarget = Setting<StoreLocation>(
        "COPY_STORE_TARGET_URL", .required, secret: true,
        help: "the store copy-store copies STORE_URL's into (and verifies against): sqlite:<path> (created when missing) or redis://... / rediss://... (TLS against the system's CAs; STORE_TLS_* are STORE_URL's); never the same store as STORE_URL"
    ) { text throws(SettingProblem) in try StoreLocation(parsing: text) }

    static let copies: [SettingDeclaration] = [copyTarget.declaration]
}
