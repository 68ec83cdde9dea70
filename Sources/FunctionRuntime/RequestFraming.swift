#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Splits direct-mode stdin into requests.
///
/// The whole input is first tried as one JSON document (so a pretty-printed request works);
/// when it is not one, every non-blank line is a request of its own (NDJSON), and a bad line
/// gets its own error without disturbing its neighbours.
enum RequestFraming {
    static func documents(_ input: [UInt8]) -> [DocumentProbe] {
        let lines = nonBlankLines(input)
        if lines.isEmpty { return [] }
        if lines.count == 1 { return [DocumentProbe(input[...])] }
        // A JSON text is one value: when the first line alone is one, the whole input, which
        // has more after it, cannot be. A batch is then known to be NDJSON without parsing
        // all of its megabytes once more as a single document.
        let first = DocumentProbe(input[lines[0]])
        if !first.isValidJSON {
            let whole = DocumentProbe(input[...])
            if whole.isValidJSON { return [whole] }
        }
        return [first] + lines.dropFirst().map { DocumentProbe(input[$0]) }
    }

    /// The ranges of the lines that hold more than whitespace. A batch of thousands of JWS is
    /// megabytes and this runs before any of them is served, so newlines are found with
    /// memchr and only a line's leading bytes are looked at to tell whether it is blank.
    static func nonBlankLines(_ input: [UInt8]) -> [Range<Int>] {
        input.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return [] }
            var ranges: [Range<Int>] = []
            var start = 0
            while start < buffer.count {
                let end = memchr(base + start, Int32(UInt8(ascii: "\n")), buffer.count - start)
                    .map { base.distance(to: $0.assumingMemoryBound(to: UInt8.self)) } ?? buffer.count
                if buffer[start..<end].contains(where: { !isWhitespace($0) }) { ranges.append(start..<end) }
                start = end + 1
            }
            return ranges
        }
    }

    /// JSON's insignificant whitespace (RFC 8259 §2).
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\t")
    }
}
