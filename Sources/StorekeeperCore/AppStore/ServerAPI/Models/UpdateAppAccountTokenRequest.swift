import FoundationEssentials

/// The body of Set App Account Token.
///
/// [UpdateAppAccountTokenRequest](https://developer.apple.com/documentation/appstoreserverapi/updateappaccounttokenrequest)
public struct UpdateAppAccountTokenRequest: Codable, Sendable, Equatable {
    /// A lowercase UUID.
    public var appAccountToken: String?

    public init(appAccountToken: String? = nil) { self.appAccountToken = appAccountToken }
}
