import FunctionRuntime

/// migrate-receipt's legacy receipts and verifyReceipt.
extension StorekeeperSettings {
    static let receiptRootCertificates = Setting<[String]>(
        "APPSTORE_RECEIPT_ROOT_CERTS", .required,
        help: "comma-separated files or folders of the roots legacy receipts chain to (Apple Inc. Root from `make apple-roots`, or the test receipt PKI's root)"
    ) { text throws(SettingProblem) in try readablePaths(text) }

    static let sharedSecret = Setting<String>.text(
        "APPSTORE_SHARED_SECRET", .optional, secret: true,
        help: "the app's shared secret for verifyReceipt; required by legacyCheck requests (exit 78 without it), never logged")

    static let verifyReceiptURL = Setting<String>.httpURL(
        "APPSTORE_VERIFY_RECEIPT_URL",
        help: "base URL of a verifyReceipt stand-in (tests): <base>/buy/verifyReceipt and <base>/sandbox/verifyReceipt; Apple's endpoints otherwise")

    static let receipts: [SettingDeclaration] = [
        receiptRootCertificates.declaration, sharedSecret.declaration, verifyReceiptURL.declaration,
    ]
}
