import StorekeeperCore

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
        // Nearly every document is strict JSON, which StrictJSON reads in a fraction of what
        // JSONDecoder takes (a batch line is a whole JWS): its members decide the shape. A
        // document it refuses (a name twice, a BOM, nesting beyond its limit) is classified by
        // JSONDecoder as before, so what reaches the handler, and how, does not change.
        if let json = try? StrictJSON.parse(self.bytes) {
            shape = Self.shape(of: json, bytes: self.bytes)
            return
        }
        do {
            shape = try RuntimeJSON.decode(ShapeReader.self, from: self.bytes).shape
        } catch {
            // ShapeReader itself never throws, so this can only be the parser.
            shape = .invalidJSON
        }
    }

    /// ShapeReader's rule, read from a parsed document.
    private static func shape(of json: StrictJSON, bytes: [UInt8]) -> Shape {
        guard case .object = json else { return .notAnObject }
        guard json["version"] == .string("2.0"), case .string? = json["requestContext"]?["http"]?["method"] else {
            return .request
        }
        if let event = try? RuntimeJSON.decode(HTTPEvent.self, from: bytes) { return .httpEvent(event) }
        return .malformedHTTPEvent
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
