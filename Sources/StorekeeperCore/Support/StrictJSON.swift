/// One JSON text read strictly (RFC 8259 §2, I-JSON's rules of RFC 7493): UTF-8 without a
/// byte order mark, no duplicate member names, no lone surrogates, nothing after the value.
///
/// Signed payloads are read with it before any claim is looked at, and what Storekeeper
/// keeps and answers is this value re-encoded, never the raw bytes: a reader that takes the
/// last of two duplicate keys, or that trips on a BOM, sees exactly what the checks saw.
/// Numbers stay the text that was signed (`1697680122257.447`, `9007199254740993`), members
/// stay in their order, strings are re-escaped minimally.
public indirect enum StrictJSON: Sendable, Equatable {
    case null
    case bool(Bool)
    /// The number's literal, as written (already checked against the grammar).
    case number(String)
    case string(String)
    case array([StrictJSON])
    /// Members in the order they came, each name once.
    case object([(name: String, value: StrictJSON)])

    /// Why a text is not strict JSON.
    public struct FormatError: Error, Equatable, CustomStringConvertible {
        public let reason: String
        public let offset: Int
        /// Where in the document: the members and indices leading to the value that failed
        /// (for a duplicate name, to the name itself); empty at the top. A configuration file
        /// names the field this way rather than by byte.
        public internal(set) var path: [PathComponent] = []
        /// Set when the text names a member twice: the name (the path ends at it).
        public internal(set) var duplicateName: String?
        public var description: String { "\(reason) at byte \(offset)" }
    }

    /// One step into a document: an object's member or an array's element.
    public enum PathComponent: Sendable, Equatable {
        case member(String)
        case index(Int)
    }

    /// Hostile nesting would otherwise recurse until the stack runs out.
    public static let maximumDepth = 64

    public static func parse(_ bytes: [UInt8]) throws(FormatError) -> StrictJSON {
        // Validated as a whole first, so every string sliced below is well-formed UTF-8.
        guard String(validating: bytes, as: UTF8.self) != nil else {
            throw FormatError(reason: "not UTF-8", offset: 0)
        }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            throw FormatError(reason: "a byte order mark is not allowed", offset: 0)
        }
        var parser = Parser(bytes: bytes)
        parser.skipWhitespace()
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.position == bytes.count else {
            throw FormatError(reason: "text after the JSON value", offset: parser.position)
        }
        return value
    }

    /// The value as compact JSON: no whitespace, members in their order, numbers as written.
    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        append(to: &bytes)
        return bytes
    }

    private func append(to bytes: inout [UInt8]) {
        switch self {
        case .null: bytes.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
        case .bool(let value): bytes.append(contentsOf: Array((value ? "true" : "false").utf8))
        case .number(let literal): bytes.append(contentsOf: literal.utf8)
        case .string(let value): JSONObjectBuilder.appendString(value, to: &bytes)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                element.append(to: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                JSONObjectBuilder.appendString(member.name, to: &bytes)
                bytes.append(UInt8(ascii: ":"))
                member.value.append(to: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    public static func == (lhs: StrictJSON, rhs: StrictJSON) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.number(let a), .number(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.object(let a), .object(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.name == $1.name && $0.value == $1.value }
        default: return false
        }
    }

    /// The value of member `name` of an object.
    public subscript(name: String) -> StrictJSON? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.name == name }?.value
    }
}

extension StrictJSON {
    private struct Parser {
        let bytes: [UInt8]
        var position = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        func fail(_ reason: String) -> FormatError { FormatError(reason: reason, offset: position) }

        mutating func skipWhitespace() {
            while position < bytes.count {
                switch bytes[position] {
                case 0x20, 0x09, 0x0A, 0x0D: position += 1
                default: return
                }
            }
        }

        mutating func value(depth: Int) throws(FormatError) -> StrictJSON {
            guard depth < StrictJSON.maximumDepth else { throw fail("nested deeper than \(StrictJSON.maximumDepth)") }
            guard position < bytes.count else { throw fail("unexpected end") }
            switch bytes[position] {
            case UInt8(ascii: "{"): return try object(depth: depth)
            case UInt8(ascii: "["): return try array(depth: depth)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
            default: throw fail("unexpected character")
            }
        }

        mutating func literal(_ word: StaticString) throws(FormatError) {
            let count = word.utf8CodeUnitCount
            guard position + count <= bytes.count,
                  bytes[position..<(position + count)].elementsEqual(UnsafeBufferPointer(start: word.utf8Start, count: count))
            else { throw fail("unexpected character") }
            position += count
        }

        mutating func object(depth: Int) throws(FormatError) -> StrictJSON {
            position += 1
            var members: [(name: String, value: StrictJSON)] = []
            var names: Set<String> = []
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
                position += 1
                return .object(members)
            }
            while true {
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw fail("expected a member name") }
                let nameOffset = position
                let name = try string()
                // Compared decoded, so "a" and "\u0061" are the same name.
                guard names.insert(name).inserted else {
                    var error = FormatError(reason: "duplicate member name \"\(name.prefix(64))\"", offset: nameOffset)
                    error.path = [.member(name)]
                    error.duplicateName = name
                    throw error
                }
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw fail("expected ':'") }
                position += 1
                skipWhitespace()
                do {
                    members.append((name, try value(depth: depth + 1)))
                } catch {
                    // Paid only on failure: the path is built on the way out.
                    var located = error
                    located.path.insert(.member(name), at: 0)
                    throw located
                }
                skipWhitespace()
                guard position < bytes.count else { throw fail("unexpected end") }
                if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
                if bytes[position] == UInt8(ascii: "}") { position += 1; return .object(members) }
                throw fail("expected ',' or '}'")
            }
        }

        mutating func array(depth: Int) throws(FormatError) -> StrictJSON {
            position += 1
            var elements: [StrictJSON] = []
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
                position += 1
                return .array(elements)
            }
            while true {
                skipWhitespace()
                do {
                    elements.append(try value(depth: depth + 1))
                } catch {
                    var located = error
                    located.path.insert(.index(elements.count), at: 0)
                    throw located
                }
                skipWhitespace()
                guard position < bytes.count else { throw fail("unexpected end") }
                if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
                if bytes[position] == UInt8(ascii: "]") { position += 1; return .array(elements) }
                throw fail("expected ',' or ']'")
            }
        }

        /// -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
        mutating func number() throws(FormatError) -> String {
            let start = position
            func digits(_ parser: inout Parser) -> Int {
                let from = parser.position
                while parser.position < parser.bytes.count,
                      (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(parser.bytes[parser.position]) {
                    parser.position += 1
                }
                return parser.position - from
            }
            if bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard position < bytes.count else { throw fail("a number needs digits") }
            if bytes[position] == UInt8(ascii: "0") {
                position += 1
            } else if digits(&self) == 0 {
                throw fail("a number needs digits")
            }
            if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
                position += 1
                guard digits(&self) > 0 else { throw fail("a fraction needs digits") }
            }
            if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
                position += 1
                if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                    position += 1
                }
                guard digits(&self) > 0 else { throw fail("an exponent needs digits") }
            }
            return String(decoding: bytes[start..<position], as: UTF8.self)
        }

        mutating func string() throws(FormatError) -> String {
            position += 1
            // Most strings (every certificate, every JWS) have no escape: find the closing quote
            // in one tight pass and take the run whole. Anything else is read byte by byte below.
            let runEnd = bytes.withUnsafeBufferPointer { buffer in
                var index = position
                while index < buffer.count, buffer[index] != UInt8(ascii: "\""), buffer[index] != UInt8(ascii: "\\"),
                      buffer[index] >= 0x20 {
                    index += 1
                }
                return index
            }
            if runEnd < bytes.count, bytes[runEnd] == UInt8(ascii: "\"") {
                defer { position = runEnd + 1 }
                return String(decoding: bytes[position..<runEnd], as: UTF8.self)
            }
            var scalars: [UInt8] = []
            var runStart = position
            while true {
                guard position < bytes.count else { throw fail("unterminated string") }
                let byte = bytes[position]
                switch byte {
                case UInt8(ascii: "\""):
                    scalars.append(contentsOf: bytes[runStart..<position])
                    position += 1
                    return String(decoding: scalars, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    scalars.append(contentsOf: bytes[runStart..<position])
                    position += 1
                    try escape(into: &scalars)
                    runStart = position
                case 0..<0x20:
                    throw fail("a control character must be escaped")
                default:
                    position += 1
                }
            }
        }

        mutating func escape(into output: inout [UInt8]) throws(FormatError) {
            guard position < bytes.count else { throw fail("unterminated escape") }
            let byte = bytes[position]
            position += 1
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(byte)
            case UInt8(ascii: "b"): output.append(0x08)
            case UInt8(ascii: "f"): output.append(0x0C)
            case UInt8(ascii: "n"): output.append(0x0A)
            case UInt8(ascii: "r"): output.append(0x0D)
            case UInt8(ascii: "t"): output.append(0x09)
            case UInt8(ascii: "u"):
                var code = try hex4()
                if (0xD800...0xDBFF).contains(code) {
                    guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
                        throw fail("a lone surrogate is not a character")
                    }
                    position += 2
                    let low = try hex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw fail("a lone surrogate is not a character") }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(code) {
                    throw fail("a lone surrogate is not a character")
                }
                guard let scalar = Unicode.Scalar(code) else { throw fail("not a Unicode scalar") }
                output.append(contentsOf: String(Character(scalar)).utf8)
            default:
                throw fail("unknown escape")
            }
        }

        mutating func hex4() throws(FormatError) -> UInt32 {
            guard position + 4 <= bytes.count else { throw fail("\\u needs four hex digits") }
            var value: UInt32 = 0
            for byte in bytes[position..<(position + 4)] {
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw fail("\\u needs four hex digits")
                }
                value = value << 4 | UInt32(digit)
            }
            position += 4
            return value
        }
    }
}
