import FoundationEssentials

/// The body of Extend a Subscription Renewal Date.
///
/// [ExtendRenewalDateRequest](https://developer.apple.com/documentation/appstoreserverapi/extendrenewaldaterequest)
public struct ExtendRenewalDateRequest: Codable, Sendable, Equatable {
    /// 1...90.
    public var extendByDays: Int32?
    /// An `ExtendReasonCode` wire value.
    public var extendReasonCode: Int32?
    /// Your unique id for this request (at most 128 characters).
    public var requestIdentifier: String?

    public init(extendByDays: Int32? = nil, extendReasonCode: Int32? = nil, requestIdentifier: String? = nil) {
        self.extendByDays = extendByDays
        self.extendReasonCode = extendReasonCode
        self.requestIdentifier = requestIdentifier
    }
}
