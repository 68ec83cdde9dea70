/// Where each environment's App Store Server API lives. Tests and proxies replace both.
///
/// [App Store Server API](https://developer.apple.com/documentation/appstoreserverapi)
public struct AppStoreAPIBaseURLs: Sendable, Equatable {
    public var production: String
    public var sandbox: String

    public init(production: String, sandbox: String) {
        self.production = Self.trimmed(production)
        self.sandbox = Self.trimmed(sandbox)
    }

    /// Apple's hosts.
    public static let apple = AppStoreAPIBaseURLs(
        production: "https://api.storekit.apple.com",
        sandbox: "https://api.storekit-sandbox.apple.com")

    /// One override for both environments: production at `base`, the sandbox at
    /// `base/sandbox` (the layout of the fake App Store and of a path-routing proxy).
    public static func overridden(_ base: String, sandbox: String? = nil) -> AppStoreAPIBaseURLs {
        let root = trimmed(base)
        return AppStoreAPIBaseURLs(production: root, sandbox: sandbox ?? root + "/sandbox")
    }

    public func url(for environment: AppStoreAPIEnvironment) -> String {
        switch environment {
        case .production: production
        case .sandbox: sandbox
        }
    }

    private static func trimmed(_ url: String) -> String {
        var url = url
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }
}
