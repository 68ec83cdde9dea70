import FoundationEssentials

/// The Retention Messaging API's endpoints (messages and images Apple reviews, the default
/// message per product and locale, the realtime URL, the sandbox performance test), named as
/// Apple's server libraries name their methods (Swift, Node and Java: `configureRealtimeURL`;
/// Python's snake case says the same). Identifiers are lowercase UUIDs (Node's documentation
/// says so; Swift's `uuidString` would send them uppercase).
///
/// [Retention Messaging API](https://developer.apple.com/documentation/retentionmessaging)
extension AppStoreAPIOperation {
    private static func id(_ value: String) -> String { PercentEncoding.encode(value) }
    private static let messaging = "/inApps/v1/messaging"

    /// An image is sent as it is, `image/png`; `imageSize` is `FULL_SIZE` or `BULLET_POINT`.
    public static func uploadImage(imageIdentifier: String, image: [UInt8], imageSize: String?) -> AppStoreAPIOperation {
        AppStoreAPIOperation(name: "uploadImage", method: "PUT", path: messaging + "/image/" + id(imageIdentifier),
                             query: imageSize.map { [("imageSize", $0)] } ?? [], body: image, contentType: "image/png")
    }

    public static func deleteImage(imageIdentifier: String) -> AppStoreAPIOperation {
        AppStoreAPIOperation(name: "deleteImage", method: "DELETE", path: messaging + "/image/" + id(imageIdentifier))
    }

    public static func getImageList() -> AppStoreAPIOperation {
        AppStoreAPIOperation(name: "getImageList", method: "GET", path: messaging + "/image/list")
    }

    public static func uploadMessage(messageIdentifier: String,
                                     request: UploadMessageRequestBody) throws(AppStoreAPIError) -> AppStoreAPIOperation {
        AppStoreAPIOperation(name: "uploadMessage", method: "PUT", path: messaging + "/message/" + id(messageIdentifier),
                             body: try jsonBody(request))
    }

    public static func deleteMessage(messageIdentifier: String) -> AppStoreAPIOperation {
        AppStoreAPIOperation(name: "deleteMessage", method: "DELETE", path: messaging + "/message/" + id(messageIdentifier))
    }

    public static func getMessageList() -> AppStoreAPIOperation {
        AppStoreAPIOperation(name: "getMessageList", method: "GET", path: messaging + "/message/list")
    }

    public static func configureDefaultMessage(productId: String, locale: String,
                                               request: DefaultConfigurationRequest) throws(AppStoreAPIError) -> AppStoreAPIOperation {
        AppStoreAPIOperation(name: "configureDefaultMessage", method: "PUT",
                             path: messaging + "/default/" + id(productId) + "/" + id(locale), body: try jsonBody(request))
    }

    public static func deleteDefaultMessage(productId: String, locale: String) -> AppStoreAPIOperation {
        AppStoreAPIOperation(name: "deleteDefaultMessage", method: "DELETE",
                             path: messaging + "/default/" + id(productId) + "/" + id(locale))
    }

    public static func getDefaultMessage(productId: String, locale: String) -> AppStoreAPIOperation {
        AppStoreAPIOperation(name: "getDefaultMessage", method: "GET", path: messaging + "/default/" + id(productId) + "/" + id(locale))
    }

    public static func configureRealtimeURL(request: RealtimeUrlRequest) throws(AppStoreAPIError) -> AppStoreAPIOperation {
        AppStoreAPIOperation(name: "configureRealtimeURL", method: "PUT", path: messaging + "/realtime/url", body: try jsonBody(request))
    }

    public static func deleteRealtimeURL() -> AppStoreAPIOperation {
        AppStoreAPIOperation(name: "deleteRealtimeURL", method: "DELETE", path: messaging + "/realtime/url")
    }

    public static func getRealtimeURL() -> AppStoreAPIOperation {
        AppStoreAPIOperation(name: "getRealtimeURL", method: "GET", path: messaging + "/realtime/url")
    }

    /// Sandbox only: Apple calls the sandbox realtime URL many times and measures it.
    public static func initiatePerformanceTest(request: PerformanceTestRequest) throws(AppStoreAPIError) -> AppStoreAPIOperation {
        AppStoreAPIOperation(name: "initiatePerformanceTest", method: "POST", path: messaging + "/performanceTest",
                             body: try jsonBody(request))
    }

    public static func getPerformanceTestResults(requestId: String) -> AppStoreAPIOperation {
        AppStoreAPIOperation(name: "getPerformanceTestResults", method: "GET", path: messaging + "/performanceTest/result/" + id(requestId))
    }
}
