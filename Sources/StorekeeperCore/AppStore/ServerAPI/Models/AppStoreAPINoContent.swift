import FoundationEssentials

/// The answer of an endpoint that answers no body (Send Consumption Information, Set App
/// Account Token).
public struct AppStoreAPINoContent: Codable, Sendable, Equatable {
    public init() {}
}
