/// Splits direct-mode stdin into requests.
///
/// The whole input is first tried as one JSON document (so a pretty-printed request works);
/// when it is not one, every non-blank line is a request of its own (NDJSON), and a bad line
/// gets its own error without disturbing its neighbours.
enum RequestFraming {
    static func documents(_ input: [UInt8]) -> [DocumentProbe] {
        guard !input.allSatisfy(isWhitespace) else { return [] }
        let whole = DocumentProbe(input[...])
        let lines = input.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true)
            .filter { !$0.allSatisfy(isWhitespace) }
        if whole.isValidJSON || lines.count <= 1 { return [whole] }
        return lines.map { DocumentProbe($0) }
    }

    /// JSON's insignificant whitespace (RFC 8259 §2).
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\t")
    }
}
