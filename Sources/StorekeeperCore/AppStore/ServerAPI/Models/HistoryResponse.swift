import FoundationEssentials

/// One page of Get Transaction History (v2): up to 20 signed transactions and the revision
/// that asks for the next page while `hasMore` is true.
///
/// [HistoryResponse](https://developer.apple.com/documentation/appstoreserverapi/historyresponse)
public struct HistoryResponse: Codable, Sendable, Equatable {
    public var revision: String?
    public var hasMore: Bool?
    public var bundleId: String?
    public var appAppleId: Int64?
    /// The wire value of `environment`.
    public var rawEnvironment: String?
    /// `JWSTransaction`s.
    public var signedTransactions: [String]?

    public var environment: Environment? { rawEnvironment.flatMap(Environment.init(rawValue:)) }

    enum CodingKeys: String, CodingKey {
        case revision, hasMore, bundleId, appAppleId, signedTransactions
        case rawEnvironment = "environment"
    }
}
