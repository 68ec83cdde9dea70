import FoundationEssentials

/// Apple's error body.
///
/// [ErrorPayload](https://developer.apple.com/documentation/appstoreserverapi/errorpayload)
public struct ErrorPayload: Codable, Sendable, Equatable {
    public var errorCode: Int64?
    public var errorMessage: String?

    public init(errorCode: Int64? = nil, errorMessage: String? = nil) {
        self.errorCode = errorCode
        self.errorMessage = errorMessage
    }
}
