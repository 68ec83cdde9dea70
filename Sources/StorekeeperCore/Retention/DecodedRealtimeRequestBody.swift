import FoundationEssentials

/// What the App Store asks the Get Retention Message endpoint when a subscriber views the
/// subscription and may cancel it: the signed payload of a `RealtimeRequestBody`, decoded.
///
/// [DecodedRealtimeRequestBody](https://developer.apple.com/documentation/retentionmessaging/decodedrealtimerequestbody)
public struct DecodedRealtimeRequestBody: Decodable, Sendable, Equatable {
    /// The original transaction identifier of the customer's subscription.
    public var originalTransactionId: String
    /// The app, by its numeric App Apple ID (a realtime request carries no bundle id).
    public var appAppleId: Int64?
    /// The auto-renewable subscription the customer is viewing.
    public var productId: String
    /// The device's locale (`en-US`).
    public var userLocale: String
    /// A UUID Apple makes for each request.
    public var requestIdentifier: String
    /// When Apple signed the request, in milliseconds since 1970.
    public var signedDate: Int64
    /// The wire value of `environment`.
    public var rawEnvironment: String

    enum CodingKeys: String, CodingKey {
        case originalTransactionId, appAppleId, productId, userLocale, requestIdentifier, signedDate
        case rawEnvironment = "environment"
    }

    public init(originalTransactionId: String, appAppleId: Int64?, productId: String, userLocale: String,
                requestIdentifier: String, signedDate: Int64, rawEnvironment: String) {
        self.originalTransactionId = originalTransactionId
        self.appAppleId = appAppleId
        self.productId = productId
        self.userLocale = userLocale
        self.requestIdentifier = requestIdentifier
        self.signedDate = signedDate
        self.rawEnvironment = rawEnvironment
    }

    public var environment: Environment? { Environment(rawValue: rawEnvironment) }
}
