import FunctionRuntime

/// The subscription offer key sign-offer signs with. Without it, the App Store Server API key
/// (`APPSTORE_KEY_ID`, `APPSTORE_PRIVATE_KEY`) signs offers too: Apple accepts either kind of
/// In-App Purchase key.
extension StorekeeperSettings {
    static let offerKeyId = Setting<String>.text(
        "APPSTORE_OFFER_KEY_ID", .optional,
        help: "the subscription offer key's id (App Store Connect, Users and Access, Integrations, In-App Purchase); with APPSTORE_OFFER_PRIVATE_KEY, else APPSTORE_KEY_ID and APPSTORE_PRIVATE_KEY sign offers")

    /// The path; the key is read at start-up. Never from the catalog: it names a secret.
    static let offerPrivateKey = Setting<String>.text(
        "APPSTORE_OFFER_PRIVATE_KEY", .optional,
        help: "path to the subscription offer key's .p8 file (PKCS#8 PEM, P-256); read at start-up, never logged")

    static let offers: [SettingDeclaration] = [offerKeyId.declaration, offerPrivateKey.declaration]
}
