import FoundationEssentials

/// Get All Subscription Statuses' answer: per subscription group, the latest transaction and
/// renewal information of each subscription.
///
/// [StatusResponse](https://developer.apple.com/documentation/appstoreserverapi/statusresponse)
public struct StatusResponse: Codable, Sendable, Equatable {
    /// The wire value of `environment`.
    public var rawEnvironment: String?
    public var bundleId: String?
    public var appAppleId: Int64?
    public var data: [SubscriptionGroupIdentifierItem]?

    public var environment: Environment? { rawEnvironment.flatMap(Environment.init(rawValue:)) }

    enum CodingKeys: String, CodingKey {
        case bundleId, appAppleId, data
        case rawEnvironment = "environment"
    }
}
