import FoundationEssentials

/// A JWS in compact serialization (RFC 7515 §7.1), split and decoded but NOT verified.
///
/// Parsing is strict: exactly three parts, unpadded base64url, a header that is a JSON
/// object. Whoever verifies decides what the header must say; this type only keeps the
/// exact bytes that were signed (`signingInput`), so verification never re-encodes.
public struct CompactJWS: Sendable {
    /// The header as sent, for checks (`alg`, `kid`, `x5c`).
    public let header: JOSEHeader
    /// The decoded payload bytes (a JSON document for every JWS Storekeeper reads).
    public let payload: [UInt8]
    /// The decoded signature (for ES256, r||s).
    public let signature: [UInt8]
    /// ASCII(BASE64URL(header) || '.' || BASE64URL(payload)): the bytes the signature covers.
    public let signingInput: [UInt8]

    /// A compact JWS is never this large; refusing early keeps a hostile input cheap.
    public static let maximumLength = 1 << 20

    public init(parsing text: some StringProtocol) throws(JWSFormatError) {
        let bytes = Array(text.utf8)
        guard bytes.count <= Self.maximumLength else { throw JWSFormatError("JWS is larger than \(Self.maximumLength) bytes") }
        guard let firstDot = bytes.firstIndex(of: UInt8(ascii: ".")) else {
            throw JWSFormatError("a compact JWS has three parts separated by dots")
        }
        guard let secondDot = bytes[(firstDot + 1)...].firstIndex(of: UInt8(ascii: ".")),
              !bytes[(secondDot + 1)...].contains(UInt8(ascii: "."))
        else { throw JWSFormatError("a compact JWS has three parts separated by dots") }

        let headerPart = bytes[..<firstDot]
        let payloadPart = bytes[(firstDot + 1)..<secondDot]
        let signaturePart = bytes[(secondDot + 1)...]
        guard !headerPart.isEmpty, !payloadPart.isEmpty, !signaturePart.isEmpty else {
            throw JWSFormatError("a JWS part is empty")
        }
        guard let headerBytes = Base64URL.decode(utf8: headerPart) else { throw JWSFormatError("header is not base64url") }
        guard let payloadBytes = Base64URL.decode(utf8: payloadPart) else { throw JWSFormatError("payload is not base64url") }
        guard let signatureBytes = Base64URL.decode(utf8: signaturePart) else { throw JWSFormatError("signature is not base64url") }

        self.header = try JOSEHeader(json: headerBytes)
        self.payload = payloadBytes
        self.signature = signatureBytes
        self.signingInput = Array(bytes[..<secondDot])
    }
}

/// Why a string is not a well-formed compact JWS. Callers map it to their own wire code
/// (the App Store's INVALID_JWT_FORMAT, Sign in with Apple's `invalid_token`).
public struct JWSFormatError: Error, Equatable, CustomStringConvertible {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}
