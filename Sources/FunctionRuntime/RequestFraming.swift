/// Splits direct-mode stdin into requests.
///
/// The whole input is first tried as one JSON document (so a pretty-printed request works);
/// when it is not one, every non-blank line is a request of its own (NDJSON), and a bad line
/// gets its own error without disturbing its neighbours.
enum RequestFraming {
    static func documents(_ input: [UInt8]) -> [DocumentProbe] {
        let lines = nonBlankLines(input)
        if lines.isEmpty { return [] }
        let whole = DocumentProbe(input[...])
        if lines.count == 1 || whole.isValidJSON { return [whole] }
        return lines.map { DocumentProbe(input[$0]) }
    }

    /// The ranges of the lines that hold more than whitespace. One pass over raw bytes: a
    /// batch of thousands of JWS is megabytes, and this runs before any of them is served.
    static func nonBlankLines(_ input: [UInt8]) -> [Range<Int>] {
        input.withUnsafeBufferPointer { buffer in
            var ranges: [Range<Int>] = []
            var start = 0
            var blank = true
            for index in 0..<buffer.count {
                let byte = buffer[index]
                if byte == UInt8(ascii: "\n") {
                    if !blank { ranges.append(start..<index) }
                    start = index + 1
                    blank = true
                } else if blank, !isWhitespace(byte) {
                    blank = false
                }
            }
            if !blank { ranges.append(start..<buffer.count) }
            return ranges
        }
    }

    /// JSON's insignificant whitespace (RFC 8259 §2).
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\t")
    }
}
