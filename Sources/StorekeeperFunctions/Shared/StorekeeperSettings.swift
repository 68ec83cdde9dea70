import FunctionRuntime

/// The settings table: every setting a Storekeeper function reads, each declared once (name,
/// requirement, secret or not, sources, help line, parser) in the extensions beside this
/// file and in `RuntimeSettings`. Descriptors list uses of these declarations; `--help`,
/// each function.json and the README's settings table are checked against `all`.
public enum StorekeeperSettings {
    public static let all: [SettingDeclaration] = RuntimeSettings.all + appStore + appStoreAPI + offers + receipts + signInWithApple + jobs + webhooks + backups + copies + [
        eventRetentionDays.declaration, simulatePKIDirectory.declaration, dashboardQuietHours.declaration,
    ]

    /// simulate-store's test PKI.
    static let simulatePKIDirectory = Setting<String>.text(
        "SIMULATE_PKI_DIR", .required,
        help: "folder made by Tests/Fixtures/pki/make-pki.sh: <stem>.pem certificates and <stem>.key keys")
}
