/// Decodes a `RequestBody` while checking its top-level keys against `fields`, in one parse.
///
/// Everything thrown from inside `init(from:)` is wrapped in `Failure`, so whatever arrives
/// unwrapped can only come from the JSON parser itself: that is how `invalid_json` is told
/// apart from a wrong field without reading any error's message text.
struct StrictBody<T: RequestBody>: Decodable {
    struct Failure: Error {
        let error: FunctionError
    }

    let value: T

    init(from decoder: any Decoder) throws {
        let container: KeyedDecodingContainer<AnyCodingKey>
        do {
            container = try decoder.container(keyedBy: AnyCodingKey.self)
        } catch {
            throw Failure(error: .badInput(message: "the request must be a JSON object"))
        }
        let unknown = container.allKeys.map(\.stringValue).filter { !T.fields.contains($0) }.sorted()
        if !unknown.isEmpty {
            // Names are echoed (and logged) only in part: a stray "field" can be a whole JWS.
            let names = unknown.prefix(5).map { "`\($0.count > 40 ? $0.prefix(40) + "…" : Substring($0))`" }.joined(separator: ", ")
            throw Failure(error: .badInput(code: .unknownField, message: "unknown field \(names)"))
        }
        do {
            value = try T(from: decoder)
        } catch {
            throw Failure(error: FunctionError.describing(decodingFailure: error))
        }
    }

    static func decode(json bytes: [UInt8]) throws -> T {
        do {
            return try RuntimeJSON.decode(StrictBody<T>.self, from: bytes).value
        } catch let failure as Failure {
            throw failure.error
        } catch {
            throw FunctionError.badInput(code: .invalidJSON, message: "the request is not valid JSON")
        }
    }

    /// Query or form parameters become a JSON object of strings, then follow the JSON path,
    /// so one set of checks covers every shape a request can arrive in.
    static func decode(parameters: [String: String]) throws -> T {
        let json: [UInt8]
        do {
            json = try RuntimeJSON.encode(parameters)
        } catch {
            throw FunctionError.badInput(message: "the parameters cannot be read")
        }
        return try decode(json: json)
    }
}
