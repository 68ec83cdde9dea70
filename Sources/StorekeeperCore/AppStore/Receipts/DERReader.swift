/// A strict reader of the DER subset receipt payloads use: single-byte tags, definite
/// minimal lengths, nothing read past the end. Every problem is a `ReceiptError`
/// (INVALID_RECEIPT_FORMAT) naming the offset; no input can make it trap or loop.
///
/// It reads one level at a time; callers descend explicitly into constructed values, so
/// the depth is bounded by the receipt layout itself (payload → attribute → in-app record
/// → attribute), not by the input.
struct DERReader {
    /// One tag-length-value element: its tag byte and the bytes of its value.
    struct Element {
        let tag: UInt8
        let value: ArraySlice<UInt8>
        /// Offset of the tag in the outermost input, for error messages.
        let offset: Int
    }

    enum Tag {
        static let integer: UInt8 = 0x02
        static let octetString: UInt8 = 0x04
        static let utf8String: UInt8 = 0x0C
        static let ia5String: UInt8 = 0x16
        static let sequence: UInt8 = 0x30
        static let set: UInt8 = 0x31
    }

    private let bytes: ArraySlice<UInt8>
    private var position: Int

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.position = bytes.startIndex
    }

    var isAtEnd: Bool { position >= bytes.endIndex }

    /// The next element, whatever its tag.
    mutating func next() throws(ReceiptError) -> Element {
        let start = position
        guard position < bytes.endIndex else { throw .format("DER: a value was expected at offset \(start)") }
        let tag = bytes[position]
        guard tag & 0x1F != 0x1F else { throw .format("DER: multi-byte tag at offset \(start)") }
        position += 1
        guard position < bytes.endIndex else { throw .format("DER: no length at offset \(position)") }
        let first = bytes[position]
        position += 1
        var length: Int
        if first < 0x80 {
            length = Int(first)
        } else {
            let count = Int(first & 0x7F)
            // 0x80 is BER's indefinite length; more than 4 length bytes describes more than
            // any receipt could hold (and could overflow).
            guard count >= 1, count <= 4 else { throw .format("DER: unsupported length form at offset \(start)") }
            guard bytes.endIndex - position >= count else { throw .format("DER: truncated length at offset \(start)") }
            length = 0
            for _ in 0..<count {
                length = length << 8 | Int(bytes[position])
                position += 1
            }
            // Minimal: a long form only for 128 and more, without leading zero bytes.
            guard length >= 0x80, length >> (8 * (count - 1)) != 0 else {
                throw .format("DER: non-minimal length at offset \(start)")
            }
        }
        guard bytes.endIndex - position >= length else {
            throw .format("DER: value at offset \(start) claims \(length) bytes, \(bytes.endIndex - position) remain")
        }
        let value = bytes[position..<(position + length)]
        position += length
        return Element(tag: tag, value: value, offset: start)
    }

    /// The next element, which must carry `tag`.
    mutating func next(_ tag: UInt8, _ what: @autoclosure () -> String) throws(ReceiptError) -> Element {
        let element = try next()
        guard element.tag == tag else {
            throw .format("DER: \(what()) at offset \(element.offset) has tag 0x\(String(element.tag, radix: 16)), expected 0x\(String(tag, radix: 16))")
        }
        return element
    }

    /// Reads exactly one element of `tag` from `bytes`: nothing may follow it.
    static func single(_ bytes: ArraySlice<UInt8>, _ tag: UInt8, _ what: String) throws(ReceiptError) -> Element {
        var reader = DERReader(bytes)
        let element = try reader.next(tag, what)
        guard reader.isAtEnd else { throw .format("DER: bytes after the \(what)") }
        return element
    }
}

extension DERReader.Element {
    /// A DER INTEGER that fits an Int64: minimal two's complement.
    func integer(_ what: String) throws(ReceiptError) -> Int64 {
        guard tag == DERReader.Tag.integer else { throw .format("\(what) is not an INTEGER") }
        guard let first = value.first else { throw .format("\(what): empty INTEGER") }
        guard value.count <= 8 else { throw .format("\(what): INTEGER wider than 64 bits") }
        if value.count > 1 {
            let second = value[value.startIndex + 1]
            guard !(first == 0x00 && second & 0x80 == 0), !(first == 0xFF && second & 0x80 != 0) else {
                throw .format("\(what): non-minimal INTEGER")
            }
        }
        var result: Int64 = first & 0x80 != 0 ? -1 : 0
        for byte in value {
            result = result << 8 | Int64(byte)
        }
        return result
    }

    /// The text of a UTF8String or IA5String (IA5 must be 7-bit).
    func string(_ what: String) throws(ReceiptError) -> String {
        switch tag {
        case DERReader.Tag.utf8String:
            guard let text = String(validating: value, as: UTF8.self) else { throw .format("\(what): invalid UTF-8") }
            return text
        case DERReader.Tag.ia5String:
            guard value.allSatisfy({ $0 < 0x80 }) else { throw .format("\(what): IA5String with a non-ASCII byte") }
            return String(decoding: value, as: UTF8.self)
        default:
            throw .format("\(what) is not a string")
        }
    }
}
