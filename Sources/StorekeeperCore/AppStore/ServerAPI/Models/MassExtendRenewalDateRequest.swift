import FoundationEssentials

/// The body of Extend Subscription Renewal Dates for All Active Subscribers.
///
/// [MassExtendRenewalDateRequest](https://developer.apple.com/documentation/appstoreserverapi/massextendrenewaldaterequest)
public struct MassExtendRenewalDateRequest: Codable, Sendable, Equatable {
    public var extendByDays: Int32?
    public var extendReasonCode: Int32?
    /// A UUID naming this request; Get Status of Subscription Renewal Date Extensions asks by it.
    public var requestIdentifier: String?
    /// ISO 3166-1 alpha-3 storefronts; absent means all.
    public var storefrontCountryCodes: [String]?
    public var productId: String?

    public init(extendByDays: Int32? = nil, extendReasonCode: Int32? = nil, requestIdentifier: String? = nil,
                storefrontCountryCodes: [String]? = nil, productId: String? = nil) {
        self.extendByDays = extendByDays
        self.extendReasonCode = extendReasonCode
        self.requestIdentifier = requestIdentifier
        self.storefrontCountryCodes = storefrontCountryCodes
        self.productId = productId
    }
}
