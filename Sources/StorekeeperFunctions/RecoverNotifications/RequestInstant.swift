import FoundationEssentials

/// An instant in a request: Apple's milliseconds, or an ISO 8601 date an operator can type.
struct RequestInstant: Decodable {
    let milliseconds: Int64

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int64.self) {
            milliseconds = number
            return
        }
        let text = try container.decode(String.self)
        guard let date = try? Date(text, strategy: .iso8601) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not milliseconds or an ISO 8601 date")
        }
        milliseconds = date.millisecondsSince1970
    }
}
