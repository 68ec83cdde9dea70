import FoundationEssentials

/// How far a mass renewal-date extension has got.
///
/// [MassExtendRenewalDateStatusResponse](https://developer.apple.com/documentation/appstoreserverapi/massextendrenewaldatestatusresponse)
public struct MassExtendRenewalDateStatusResponse: Codable, Sendable, Equatable {
    public var requestIdentifier: String?
    public var complete: Bool?
    /// Milliseconds since 1970.
    public var completeDate: Int64?
    public var succeededCount: Int64?
    public var failedCount: Int64?
}
