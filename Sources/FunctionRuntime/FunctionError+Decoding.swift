import StorekeeperCore

extension FunctionError {
    /// Turns what a `Decodable` initializer threw into a caller-facing error that names the
    /// field path (`items[0].sku`). Errors a request type throws on purpose pass through.
    static func describing(decodingFailure error: any Error) -> FunctionError {
        if let error = error as? FunctionError { return error }
        // A store failure is never a bad request, even when it surfaces while decoding.
        if let error = error as? StoreError { return FunctionError(storeFailure: error) }
        if let error = error as? any CodedError, !error.isRetryable {
            // A request type's own check (a token that does not verify): the caller's input.
            return FunctionError(code: error.code, message: error.reason, disposition: .badInput,
                                 details: error.details, origin: error.origin)
        }
        guard let error = error as? DecodingError else {
            return .badInput(message: "the request is not valid")
        }
        switch error {
        case .typeMismatch(let type, let context):
            return .badInput(message: "field `\(path(context.codingPath))` has the wrong type: expected \(typeName(type))")
        case .valueNotFound(let type, let context):
            return .badInput(message: "field `\(path(context.codingPath))` must not be null: expected \(typeName(type))")
        case .keyNotFound(let key, let context):
            return .badInput(message: "missing field `\(path(context.codingPath + [key]))`")
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty {
                return .badInput(message: "the request is not valid: \(context.debugDescription)")
            }
            return .badInput(message: "field `\(path(context.codingPath))` is not valid: \(context.debugDescription)")
        @unknown default:
            return .badInput(message: "the request is not valid")
        }
    }

    private static func path(_ codingPath: [any CodingKey]) -> String {
        var text = ""
        for key in codingPath {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                if !text.isEmpty { text += "." }
                text += key.stringValue
            }
        }
        return text.isEmpty ? "(top level)" : text
    }

    /// Caller-facing names for the types a JSON request is made of.
    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type, is Substring.Type: "a string"
        case is Bool.Type: "a boolean"
        case is Int.Type, is Int64.Type, is Int32.Type, is UInt.Type, is UInt64.Type, is UInt32.Type: "an integer"
        case is Double.Type, is Float.Type: "a number"
        default:
            if String(describing: type).hasPrefix("Array") { "an array" }
            else if String(describing: type).hasPrefix("Dictionary") { "an object" }
            else { String(describing: type) }
        }
    }
}

