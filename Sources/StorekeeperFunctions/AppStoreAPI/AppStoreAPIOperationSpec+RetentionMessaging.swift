import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// The Retention Messaging API's operations, as Apple's libraries name them. Message and
/// image identifiers are UUIDs, sent lowercase; an image is the request's `image`, base64 PNG.
extension AppStoreAPIOperationSpec {
    static let retentionMessaging: [AppStoreAPIOperationSpec] = [
        .init("uploadImage", identifiers: ["imageIdentifier"], query: ["imageSize"], takesImage: true) { parameters in
            let imageIdentifier = try parameters.uuid("imageIdentifier")
            let imageSize = try parameters.strings("imageSize")?.first
            if let imageSize, !["FULL_SIZE", "BULLET_POINT"].contains(imageSize) {
                throw FunctionError.badInput(message: "query.imageSize must be FULL_SIZE or BULLET_POINT")
            }
            let image = try parameters.png()
            return { _ in .uploadImage(imageIdentifier: imageIdentifier, image: image, imageSize: imageSize) }
        },
        .init("deleteImage", identifiers: ["imageIdentifier"]) { parameters in
            let imageIdentifier = try parameters.uuid("imageIdentifier")
            return { _ in .deleteImage(imageIdentifier: imageIdentifier) }
        },
        .init("getImageList") { _ in { _ in .getImageList() } },
        .init("uploadMessage", identifiers: ["messageIdentifier"], body: ["header", "body", "image", "headerPosition", "bulletPoints"],
              requiredBody: ["header", "body"]) { parameters in
            let messageIdentifier = try parameters.uuid("messageIdentifier")
            let request: UploadMessageRequestBody = try parameters.decodeBody()
            return { _ throws(AppStoreAPIError) in try .uploadMessage(messageIdentifier: messageIdentifier, request: request) }
        },
        .init("deleteMessage", identifiers: ["messageIdentifier"]) { parameters in
            let messageIdentifier = try parameters.uuid("messageIdentifier")
            return { _ in .deleteMessage(messageIdentifier: messageIdentifier) }
        },
        .init("getMessageList") { _ in { _ in .getMessageList() } },
        .init("configureDefaultMessage", identifiers: ["productId", "locale"], body: ["messageIdentifier"],
              requiredBody: ["messageIdentifier"]) { parameters in
            let (productId, locale) = (parameters.identifier("productId"), parameters.identifier("locale"))
            var request: DefaultConfigurationRequest = try parameters.decodeBody()
            guard let uuid = UUID(uuidString: request.messageIdentifier) else {
                throw FunctionError.badInput(message: "body.messageIdentifier must be a UUID")
            }
            request.messageIdentifier = uuid.uuidString.lowercased()
            return { _ throws(AppStoreAPIError) in try .configureDefaultMessage(productId: productId, locale: locale, request: request) }
        },
        .init("deleteDefaultMessage", identifiers: ["productId", "locale"]) { parameters in
            let (productId, locale) = (parameters.identifier("productId"), parameters.identifier("locale"))
            return { _ in .deleteDefaultMessage(productId: productId, locale: locale) }
        },
        .init("getDefaultMessage", identifiers: ["productId", "locale"]) { parameters in
            let (productId, locale) = (parameters.identifier("productId"), parameters.identifier("locale"))
            return { _ in .getDefaultMessage(productId: productId, locale: locale) }
        },
        .init("configureRealtimeURL", body: ["realtimeURL"], requiredBody: ["realtimeURL"]) { parameters in
            let request: RealtimeUrlRequest = try parameters.decodeBody()
            guard request.realtimeURL.hasPrefix("https://"), request.realtimeURL.utf8.count <= 256 else {
                throw FunctionError.badInput(message: "body.realtimeURL must be an https URL of at most 256 characters")
            }
            return { _ throws(AppStoreAPIError) in try .configureRealtimeURL(request: request) }
        },
        .init("deleteRealtimeURL") { _ in { _ in .deleteRealtimeURL() } },
        .init("getRealtimeURL") { _ in { _ in .getRealtimeURL() } },
        .init("initiatePerformanceTest", body: ["originalTransactionId"], requiredBody: ["originalTransactionId"]) { parameters in
            let request: PerformanceTestRequest = try parameters.decodeBody()
            return { _ throws(AppStoreAPIError) in try .initiatePerformanceTest(request: request) }
        },
        .init("getPerformanceTestResults", identifiers: ["requestId"]) { parameters in
            let requestId = parameters.identifier("requestId")
            return { _ in .getPerformanceTestResults(requestId: requestId) }
        },
    ]
}

extension AppStoreAPICall.Parameters {
    /// A message or image identifier: a UUID, as Apple takes it, lowercase.
    func uuid(_ name: String) throws -> String {
        guard let uuid = UUID(uuidString: identifier(name)) else {
            throw FunctionError.badInput(message: "\(name) must be a UUID")
        }
        return uuid.uuidString.lowercased()
    }

    /// The request's `image`: base64 of a PNG file (Apple takes PNG only).
    func png() throws -> [UInt8] {
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard let image, image.count > signature.count, Array(image.prefix(signature.count)) == signature else {
            throw FunctionError.badInput(message: "image must be a PNG file, base64")
        }
        return image
    }
}
