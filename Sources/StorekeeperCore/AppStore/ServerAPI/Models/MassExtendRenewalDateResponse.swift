import FoundationEssentials

/// The acknowledgement of a mass renewal-date extension.
///
/// [MassExtendRenewalDateResponse](https://developer.apple.com/documentation/appstoreserverapi/massextendrenewaldateresponse)
public struct MassExtendRenewalDateResponse: Codable, Sendable, Equatable {
    public var requestIdentifier: String?
}
