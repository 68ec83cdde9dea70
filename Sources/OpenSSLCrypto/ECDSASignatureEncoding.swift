/// Converts ECDSA signatures between the two forms in use: DER `SEQUENCE { INTEGER r,
/// INTEGER s }` (what OpenSSL produces and consumes) and raw `r || s`, each half
/// left-padded to the curve's size (what JWS uses, RFC 7518 §3.4).
///
/// Pure Swift: it sits on the ES256 verify path and needs no allocation in OpenSSL.
public enum ECDSASignatureEncoding {
    /// DER to raw `r || s`, each half `coordinateByteCount` bytes (32 for P-256).
    /// Strict DER: minimal lengths, minimal positive integers, nothing trailing.
    public static func derToRaw(_ der: [UInt8], coordinateByteCount: Int = 32) throws(CryptoError) -> [UInt8] {
        guard coordinateByteCount > 0 else { throw failure("derToRaw", "coordinate size must be positive") }
        var reader = Reader(bytes: der)
        let sequence = try reader.element(tag: 0x30)
        guard reader.isAtEnd else { throw failure("derToRaw", "trailing bytes after the signature") }
        var inner = Reader(bytes: sequence)
        let r = try inner.positiveInteger()
        let s = try inner.positiveInteger()
        guard inner.isAtEnd else { throw failure("derToRaw", "unexpected data after s") }
        guard r.count <= coordinateByteCount, s.count <= coordinateByteCount else {
            throw failure("derToRaw", "r or s is longer than \(coordinateByteCount) bytes")
        }
        var raw = [UInt8]()
        raw.reserveCapacity(2 * coordinateByteCount)
        raw.append(contentsOf: repeatElement(0, count: coordinateByteCount - r.count))
        raw.append(contentsOf: r)
        raw.append(contentsOf: repeatElement(0, count: coordinateByteCount - s.count))
        raw.append(contentsOf: s)
        return raw
    }

    /// Raw `r || s` (two equal halves) to DER.
    public static func rawToDER(_ raw: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard !raw.isEmpty, raw.count % 2 == 0 else {
            throw failure("rawToDER", "raw signature must be two equal, non-empty halves (got \(raw.count) bytes)")
        }
        let half = raw.count / 2
        let r = integer(raw[..<half])
        let s = integer(raw[half...])
        var der: [UInt8] = [0x30]
        appendLength(r.count + s.count, to: &der)
        der.append(contentsOf: r)
        der.append(contentsOf: s)
        return der
    }

    /// A DER INTEGER holding the unsigned big-endian `magnitude`: leading zeros dropped,
    /// one 0x00 added back when the top bit is set so the value stays positive.
    private static func integer(_ magnitude: ArraySlice<UInt8>) -> [UInt8] {
        var content = magnitude.drop { $0 == 0 }
        if content.isEmpty { content = [0] }
        let needsPad = (content.first ?? 0) & 0x80 != 0
        var out: [UInt8] = [0x02]
        appendLength(content.count + (needsPad ? 1 : 0), to: &out)
        if needsPad { out.append(0) }
        out.append(contentsOf: content)
        return out
    }

    private static func appendLength(_ length: Int, to out: inout [UInt8]) {
        if length < 0x80 {
            out.append(UInt8(length))
            return
        }
        var bytes: [UInt8] = []
        var rest = length
        while rest > 0 {
            bytes.insert(UInt8(rest & 0xFF), at: 0)
            rest >>= 8
        }
        out.append(0x80 | UInt8(bytes.count))
        out.append(contentsOf: bytes)
    }

    private static func failure(_ operation: String, _ message: String) -> CryptoError {
        CryptoError(operation: "ECDSA signature \(operation)", message: message)
    }

    /// A strict reader for the two DER shapes an ECDSA signature uses.
    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        var isAtEnd: Bool { offset == bytes.count }

        mutating func byte() throws(CryptoError) -> UInt8 {
            guard offset < bytes.count else { throw failure("derToRaw", "truncated DER") }
            defer { offset += 1 }
            return bytes[offset]
        }

        /// The content of the next element, which must carry `tag`.
        mutating func element(tag: UInt8) throws(CryptoError) -> [UInt8] {
            guard try byte() == tag else { throw failure("derToRaw", "expected DER tag 0x\(String(tag, radix: 16))") }
            let first = try byte()
            var length = 0
            if first < 0x80 {
                length = Int(first)
            } else {
                let count = Int(first & 0x7F)
                // Indefinite (0x80) and absurd lengths are not DER for a signature.
                guard count >= 1, count <= 2 else { throw failure("derToRaw", "unsupported DER length form") }
                for _ in 0..<count { length = length << 8 | Int(try byte()) }
                // DER requires the shortest length form.
                guard length >= 0x80, count == 1 || length > 0xFF else {
                    throw failure("derToRaw", "non-minimal DER length")
                }
            }
            guard length <= bytes.count - offset else { throw failure("derToRaw", "DER length exceeds the input") }
            defer { offset += length }
            return Array(bytes[offset..<offset + length])
        }

        /// A non-negative, minimally encoded INTEGER, returned without leading zeros.
        mutating func positiveInteger() throws(CryptoError) -> [UInt8] {
            let content = try element(tag: 0x02)
            guard let first = content.first else { throw failure("derToRaw", "empty INTEGER") }
            guard first & 0x80 == 0 else { throw failure("derToRaw", "negative INTEGER") }
            if content.count > 1, first == 0, content[1] & 0x80 == 0 {
                throw failure("derToRaw", "non-minimal INTEGER")
            }
            return Array(content.drop { $0 == 0 })
        }
    }
}
