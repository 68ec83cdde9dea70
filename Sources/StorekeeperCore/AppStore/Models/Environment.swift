import FoundationEssentials

/// The server environment that signed the data.
///
/// `Xcode` and `LocalTesting` data is signed by a local or test key, never by Apple's chain.
///
/// [environment](https://developer.apple.com/documentation/appstoreserverapi/environment)
public enum Environment: String, Codable, Sendable, Hashable, CaseIterable {
    case sandbox = "Sandbox"
    case production = "Production"
    case xcode = "Xcode"
    case localTesting = "LocalTesting"

    /// Whether Apple signs this environment's data with its own chain (StoreKit Testing
    /// signs Xcode and LocalTesting data with a local key).
    public var isSignedByApple: Bool {
        switch self {
        case .production, .sandbox: true
        case .xcode, .localTesting: false
        }
    }
}
