/// The message Apple shows for a product and locale when the realtime endpoint cannot answer.
///
/// [DefaultConfigurationRequest](https://developer.apple.com/documentation/retentionmessaging/defaultconfigurationrequest)
public struct DefaultConfigurationRequest: Codable, Sendable, Equatable {
    public var messageIdentifier: String

    public init(messageIdentifier: String) {
        self.messageIdentifier = messageIdentifier
    }
}

/// [DefaultConfigurationResponse](https://developer.apple.com/documentation/retentionmessaging/defaultconfigurationresponse)
public typealias DefaultConfigurationResponse = DefaultConfigurationRequest
