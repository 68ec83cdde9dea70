/// The Retention Messaging API through the same retries, token and gate as every other call.
///
/// [Retention Messaging API](https://developer.apple.com/documentation/retentionmessaging)
extension AppStoreServerAPIClient {
    /// [Upload Image](https://developer.apple.com/documentation/retentionmessaging/upload-image)
    public func uploadImage(imageIdentifier: String, image: [UInt8], imageSize: String? = nil,
                            environment: AppStoreAPIEnvironment = .production) throws(AppStoreAPIError) -> AppStoreAPIResponse<AppStoreAPINoContent> {
        try call(.uploadImage(imageIdentifier: imageIdentifier, image: image, imageSize: imageSize), environment: environment, sandboxFallback: false)
    }

    /// [Delete Image](https://developer.apple.com/documentation/retentionmessaging/delete-image)
    public func deleteImage(imageIdentifier: String,
                            environment: AppStoreAPIEnvironment = .production) throws(AppStoreAPIError) -> AppStoreAPIResponse<AppStoreAPINoContent> {
        try call(.deleteImage(imageIdentifier: imageIdentifier), environment: environment, sandboxFallback: false)
    }

    /// [Get Image List](https://developer.apple.com/documentation/retentionmessaging/get-image-list)
    public func getImageList(environment: AppStoreAPIEnvironment = .production) throws(AppStoreAPIError) -> AppStoreAPIResponse<GetImageListResponse> {
        try call(.getImageList(), environment: environment, sandboxFallback: false)
    }

    /// [Upload Message](https://developer.apple.com/documentation/retentionmessaging/upload-message)
    public func uploadMessage(messageIdentifier: String, request: UploadMessageRequestBody,
                              environment: AppStoreAPIEnvironment = .production) throws(AppStoreAPIError) -> AppStoreAPIResponse<AppStoreAPINoContent> {
        try call(try .uploadMessage(messageIdentifier: messageIdentifier, request: request), environment: environment, sandboxFallback: false)
    }

    /// [Delete Message](https://developer.apple.com/documentation/retentionmessaging/delete-message)
    public func deleteMessage(messageIdentifier: String,
                              environment: AppStoreAPIEnvironment = .production) throws(AppStoreAPIError) -> AppStoreAPIResponse<AppStoreAPINoContent> {
        try call(.deleteMessage(messageIdentifier: messageIdentifier), environment: environment, sandboxFallback: false)
    }

    /// [Get Message List](https://developer.apple.com/documentation/retentionmessaging/get-message-list)
    public func getMessageList(environment: AppStoreAPIEnvironment = .production) throws(AppStoreAPIError) -> AppStoreAPIResponse<GetMessageListResponse> {
        try call(.getMessageList(), environment: environment, sandboxFallback: false)
    }

    /// [Configure Default Message](https://developer.apple.com/documentation/retentionmessaging/configure-default-message)
    public func configureDefaultMessage(productId: String, locale: String, request: DefaultConfigurationRequest,
                                        environment: AppStoreAPIEnvironment = .production) throws(AppStoreAPIError) -> AppStoreAPIResponse<AppStoreAPINoContent> {
        try call(try .configureDefaultMessage(productId: productId, locale: locale, request: request),
                 environment: environment, sandboxFallback: false)
    }

    /// [Delete Default Message](https://developer.apple.com/documentation/retentionmessaging/delete-default-message)
    public func deleteDefaultMessage(productId: String, locale: String,
                                     environment: AppStoreAPIEnvironment = .production) throws(AppStoreAPIError) -> AppStoreAPIResponse<AppStoreAPINoContent> {
        try call(.deleteDefaultMessage(productId: productId, locale: locale), environment: environment, sandboxFallback: false)
    }

    /// [Get Default Message](https://developer.apple.com/documentation/retentionmessaging/get-default-message)
    public func getDefaultMessage(productId: String, locale: String,
                                  environment: AppStoreAPIEnvironment = .production) throws(AppStoreAPIError) -> AppStoreAPIResponse<DefaultConfigurationResponse> {
        try call(.getDefaultMessage(productId: productId, locale: locale), environment: environment, sandboxFallback: false)
    }

    /// [Configure Realtime URL](https://developer.apple.com/documentation/retentionmessaging/configure-realtime-url)
    public func configureRealtimeURL(request: RealtimeUrlRequest,
                                     environment: AppStoreAPIEnvironment = .production) throws(AppStoreAPIError) -> AppStoreAPIResponse<AppStoreAPINoContent> {
        try call(try .configureRealtimeURL(request: request), environment: environment, sandboxFallback: false)
    }

    /// [Delete Realtime URL](https://developer.apple.com/documentation/retentionmessaging/delete-realtime-url)
    public func deleteRealtimeURL(environment: AppStoreAPIEnvironment = .production) throws(AppStoreAPIError) -> AppStoreAPIResponse<AppStoreAPINoContent> {
        try call(.deleteRealtimeURL(), environment: environment, sandboxFallback: false)
    }

    /// [Get Realtime URL](https://developer.apple.com/documentation/retentionmessaging/get-realtime-url)
    public func getRealtimeURL(environment: AppStoreAPIEnvironment = .production) throws(AppStoreAPIError) -> AppStoreAPIResponse<RealtimeUrlResponse> {
        try call(.getRealtimeURL(), environment: environment, sandboxFallback: false)
    }

    /// [Initiate Performance Test](https://developer.apple.com/documentation/retentionmessaging/initiate-performance-test)
    public func initiatePerformanceTest(request: PerformanceTestRequest,
                                        environment: AppStoreAPIEnvironment = .sandbox) throws(AppStoreAPIError) -> AppStoreAPIResponse<PerformanceTestResponse> {
        try call(try .initiatePerformanceTest(request: request), environment: environment, sandboxFallback: false)
    }

    /// [Get Performance Test Results](https://developer.apple.com/documentation/retentionmessaging/get-performance-test-results)
    public func getPerformanceTestResults(requestId: String,
                                          environment: AppStoreAPIEnvironment = .sandbox) throws(AppStoreAPIError) -> AppStoreAPIResponse<PerformanceTestResultResponse> {
        try call(.getPerformanceTestResults(requestId: requestId), environment: environment, sandboxFallback: false)
    }
}
