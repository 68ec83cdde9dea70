/// One direct-mode document, parsed once to learn what it is: invalid JSON, not an object,
/// the function's own request object, or an HTTP event envelope (`"version": "2.0"` with
/// `requestContext.http.method`), already decoded.
struct DocumentProbe {
    enum Shape {
        case invalidJSON
        case notAnObject
        case request
        case httpEvent(HTTPEvent)
        /// Looked like an HTTP event but a field had the wrong type.
        case malformedHTTPEvent
    }

    let bytes: [UInt8]
    let shape: Shape

    var isValidJSON: Bool {
        if case .invalidJSON = shape { return false }
        return true
    }

    /// The door the answer goes out through: an envelope is answered with an envelope.
    var frontDoor: FrontDoor {
        switch shape {
        case .httpEvent, .malformedHTTPEvent: .httpEvent
        default: .direct
        }
    }

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = Array(bytes)
        do {
            shape = try RuntimeJSON.decode(ShapeReader.self, from: self.bytes).shape
        } catch {
            // ShapeReader itself never throws, so this can only be the parser.
            shape = .invalidJSON
        }
    }

    /// Reads just enough of a parsed document to classify it; never throws.
    private struct ShapeReader: Decodable {
        let shape: Shape

        init(from decoder: any Decoder) {
            guard let object = try? decoder.container(keyedBy: AnyCodingKey.self) else {
                shape = .notAnObject
                return
            }
            let version = try? object.decode(String.self, forKey: AnyCodingKey("version"))
            let method = try? object.nestedContainer(keyedBy: AnyCodingKey.self, forKey: AnyCodingKey("requestContext"))
                .nestedContainer(keyedBy: AnyCodingKey.self, forKey: AnyCodingKey("http"))
                .decode(String.self, forKey: AnyCodingKey("method"))
            guard version == "2.0", method != nil else {
                shape = .request
                return
            }
            if let event = try? HTTPEvent(from: decoder) {
                shape = .httpEvent(event)
            } else {
                shape = .malformedHTTPEvent
            }
        }
    }
}
