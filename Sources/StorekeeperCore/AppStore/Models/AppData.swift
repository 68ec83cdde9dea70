import FoundationEssentials

/// App metadata and a signed app transaction, sent in notifications about the app rather
/// than a purchase (for example `RESCIND_CONSENT`).
///
/// [appData](https://developer.apple.com/documentation/appstoreservernotifications/appdata)
public struct AppData: Codable, Sendable, Equatable, Hashable {
    /// The app's App Store identifier; absent in the sandbox.
    public var appAppleId: Int64?
    public var bundleId: String?
    /// The wire value of `environment`.
    public var rawEnvironment: String?
    /// A `JWSAppTransaction`: app transaction information signed by the App Store.
    public var signedAppTransactionInfo: String?

    public init(
        appAppleId: Int64? = nil,
        bundleId: String? = nil,
        rawEnvironment: String? = nil,
        signedAppTransactionInfo: String? = nil
    ) {
        self.appAppleId = appAppleId
        self.bundleId = bundleId
        self.rawEnvironment = rawEnvironment
        self.signedAppTransactionInfo = signedAppTransactionInfo
    }

    public var environment: Environment? {
        get { rawEnvironment.flatMap(Environment.init(rawValue:)) }
        set { rawEnvironment = newValue?.rawValue }
    }

    enum CodingKeys: String, CodingKey {
        case appAppleId
        case bundleId
        case rawEnvironment = "environment"
        case signedAppTransactionInfo
    }
}
