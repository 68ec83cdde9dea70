/// The JOSE header fields Storekeeper reads or writes (RFC 7515 §4.1).
///
/// Unknown header parameters are ignored when reading; `crit` is kept so a verifier can
/// refuse extensions it does not understand.
public struct JOSEHeader: Codable, Sendable, Equatable {
    /// The signing algorithm, e.g. "ES256" or "RS256". Checked before anything else.
    public var alg: String
    public var kid: String?
    public var typ: String?
    /// Certificate chain, each entry standard base64 (not base64url) DER, leaf first.
    public var x5c: [String]?
    public var crit: [String]?

    public init(alg: String, kid: String? = nil, typ: String? = nil, x5c: [String]? = nil) {
        self.alg = alg
        self.kid = kid
        self.typ = typ
        self.x5c = x5c
        self.crit = nil
    }
}

extension JOSEHeader {
    /// Reads a header's JSON strictly (`StrictJSON`): a parameter named twice is refused
    /// (RFC 7515 §4 lets a parser refuse or keep the last; refusing means no other reader can
    /// be shown one `alg` while this one checked another), null counts as absent (as a Codable
    /// read takes it), and a parameter this type knows, of the wrong type, is refused.
    public init(json bytes: [UInt8]) throws(JWSFormatError) {
        let shapeError = JWSFormatError("header is not a JSON object of the expected shape")
        let json: StrictJSON
        do {
            json = try StrictJSON.parse(bytes)
        } catch {
            throw error.duplicateName == nil ? shapeError : JWSFormatError("header names a parameter twice")
        }
        guard case .object = json, case .string(let alg)? = json["alg"] else { throw shapeError }
        func string(_ name: String) throws(JWSFormatError) -> String? {
            switch json[name] {
            case nil, .null?: return nil
            case .string(let value)?: return value
            default: throw shapeError
            }
        }
        func strings(_ name: String) throws(JWSFormatError) -> [String]? {
            switch json[name] {
            case nil, .null?: return nil
            case .array(let elements)?:
                return try elements.map { (element) throws(JWSFormatError) -> String in
                    guard case .string(let value) = element else { throw shapeError }
                    return value
                }
            default: throw shapeError
            }
        }
        self.init(alg: alg, kid: try string("kid"), typ: try string("typ"), x5c: try strings("x5c"))
        self.crit = try strings("crit")
    }
}
