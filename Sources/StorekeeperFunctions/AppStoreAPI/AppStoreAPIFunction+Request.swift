import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

extension AppStoreAPIFunction {
    /// One operation with its identifiers, query and body, as the caller names them.
    public struct Request: RequestBody {
        public enum CodingKeys: String, CodingKey, CaseIterable {
            case operation, bundleId, environment, sandboxFallback, transactionId, originalTransactionId, orderId
            case testNotificationToken, productId, requestIdentifier, query, body, allPages, decode
            case messageIdentifier, imageIdentifier, locale, requestId, image
        }
        var operation: String
        /// The app asked about (the only one without it): the token's bid.
        var bundleId: String?
        var environment: String?
        var sandboxFallback: Bool?
        var transactionId: String?
        var originalTransactionId: String?
        var orderId: String?
        var testNotificationToken: String?
        var productId: String?
        var requestIdentifier: String?
        var query: [String: JSONValue]?
        var body: [String: JSONValue]?
        var allPages: Bool?
        var decode: Bool?
        var messageIdentifier: String?
        var imageIdentifier: String?
        var locale: String?
        var requestId: String?
        /// uploadImage's PNG, base64.
        var image: String?

        /// The identifier fields in a fixed order (the first one refused is the one named).
        private var identifierFields: [(name: String, value: String?)] {
            [("transactionId", transactionId), ("originalTransactionId", originalTransactionId), ("orderId", orderId),
             ("testNotificationToken", testNotificationToken), ("productId", productId), ("requestIdentifier", requestIdentifier),
             ("messageIdentifier", messageIdentifier), ("imageIdentifier", imageIdentifier), ("locale", locale), ("requestId", requestId)]
        }

        /// The operation named, or unknown_operation.
        func spec() throws -> AppStoreAPIOperationSpec {
            guard let spec = AppStoreAPIOperationSpec.named(operation) else {
                throw FunctionError.badInput(code: .unknownOperation,
                                             message: "unknown operation \(operation); one of: \(AppStoreAPIOperationSpec.all.map(\.name).joined(separator: ", "))")
            }
            return spec
        }

        /// The identifiers, query and body, once every one given is one `spec` takes
        /// (unknown_parameter otherwise) and every one it needs is there (invalid_request).
        func parameters(for spec: AppStoreAPIOperationSpec) throws -> AppStoreAPICall.Parameters {
            let given = identifierFields
            var identifiers: [String: String] = [:]
            for name in spec.identifiers {
                guard let value = given.first(where: { $0.name == name })?.value, !value.isEmpty else {
                    throw FunctionError.badInput(message: "\(spec.name) needs \"\(name)\"")
                }
                identifiers[name] = value
            }
            for field in given where field.value != nil && !spec.identifiers.contains(field.name) {
                throw FunctionError.badInput(code: .unknownParameter, message: "\(spec.name) takes no \"\(field.name)\"")
            }
            let query = query ?? [:]
            for name in query.keys where !spec.query.contains(name) {
                throw FunctionError.badInput(code: .unknownParameter,
                                             message: "\(spec.name) takes no query parameter \"\(name)\"" + (spec.query.isEmpty ? "" : "; it takes \(spec.query.joined(separator: ", "))"))
            }
            if body != nil && spec.body.isEmpty {
                throw FunctionError.badInput(code: .unknownParameter, message: "\(spec.name) takes no body")
            }
            let body = body ?? [:]
            for name in body.keys where !spec.body.contains(name) {
                throw FunctionError.badInput(code: .unknownParameter, message: "\(spec.name) takes no body field \"\(name)\"; it takes \(spec.body.joined(separator: ", "))")
            }
            for name in spec.requiredBody where body[name] == nil || body[name] == .null {
                throw FunctionError.badInput(message: "\(spec.name) needs body field \"\(name)\"")
            }
            if allPages == true, case .none = spec.paging {
                throw FunctionError.badInput(message: "\(spec.name) has no pages; allPages applies to getTransactionHistory, getRefundHistory and getNotificationHistory")
            }
            return AppStoreAPICall.Parameters(identifiers: identifiers, query: query, body: body, image: try imageBytes(for: spec))
        }
    }
}

extension AppStoreAPIFunction.Request {
    /// Only uploadImage takes `image`, and needs it.
    fileprivate func imageBytes(for spec: AppStoreAPIOperationSpec) throws -> [UInt8]? {
        guard spec.takesImage else {
            if image != nil { throw FunctionError.badInput(code: .unknownParameter, message: "\(spec.name) takes no \"image\"") }
            return nil
        }
        guard let image, let bytes = Data(base64Encoded: image) else {
            throw FunctionError.badInput(message: "\(spec.name) needs \"image\": the PNG file, base64")
        }
        return Array(bytes)
    }
}

extension AppStoreAPIFunction {
    /// Apple's answer, every page merged, with who answered and how hard it was to get.
    public struct Answer: Encodable {
        var operation: String
        /// The app asked about (the token's bid).
        var bundleId: String
        /// The environment that answered (the sandbox, after a production "not found").
        var environment: String
        var attempts: Int
        /// Pages read, with allPages.
        var pages: Int?
        /// Apple's JSON as Apple shaped it, decoded fields added.
        var response: JSONValue
    }

    public typealias Response = CallOutcome<Answer>
}
