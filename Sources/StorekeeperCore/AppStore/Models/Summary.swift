import FoundationEssentials

/// The outcome of a request to extend renewal dates for all eligible subscribers, sent
/// with `RENEWAL_EXTENSION` / `SUMMARY` notifications.
///
/// [summary](https://developer.apple.com/documentation/appstoreservernotifications/summary)
public struct Summary: Codable, Sendable, Equatable, Hashable {
    /// The wire value of `environment`.
    public var rawEnvironment: String?
    public var appAppleId: Int64?
    public var bundleId: String?
    public var productId: String?
    /// The identifier you gave the renewal-date extension request.
    public var requestIdentifier: String?
    /// The storefronts the request was limited to.
    public var storefrontCountryCodes: [String]?
    /// How many subscriptions got the extension.
    public var succeededCount: Int64?
    /// How many subscriptions did not.
    public var failedCount: Int64?

    public init(
        rawEnvironment: String? = nil,
        appAppleId: Int64? = nil,
        bundleId: String? = nil,
        productId: String? = nil,
        requestIdentifier: String? = nil,
        storefrontCountryCodes: [String]? = nil,
        succeededCount: Int64? = nil,
        failedCount: Int64? = nil
    ) {
        self.rawEnvironment = rawEnvironment
        self.appAppleId = appAppleId
        self.bundleId = bundleId
        self.productId = productId
        self.requestIdentifier = requestIdentifier
        self.storefrontCountryCodes = storefrontCountryCodes
        self.succeededCount = succeededCount
        self.failedCount = failedCount
    }

    public var environment: Environment? {
        get { rawEnvironment.flatMap(Environment.init(rawValue:)) }
        set { rawEnvironment = newValue?.rawValue }
    }

    enum CodingKeys: String, CodingKey {
        case rawEnvironment = "environment"
        case appAppleId
        case bundleId
        case productId
        case requestIdentifier
        case storefrontCountryCodes
        case succeededCount
        case failedCount
    }
}
