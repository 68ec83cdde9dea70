internal import COpenSSL

/// The outer status of an OCSP response (RFC 6960 §4.2.1, OCSPResponseStatus). Keeps the
/// raw value, so a value this code does not know is still carried and named.
public struct OCSPResponseStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int

    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    public static let successful = OCSPResponseStatus(rawValue: 0)
    public static let malformedRequest = OCSPResponseStatus(rawValue: 1)
    public static let internalError = OCSPResponseStatus(rawValue: 2)
    public static let tryLater = OCSPResponseStatus(rawValue: 3)
    // 4 is not used.
    public static let sigRequired = OCSPResponseStatus(rawValue: 5)
    public static let unauthorized = OCSPResponseStatus(rawValue: 6)

    /// OpenSSL's name for the status ("successful", "malformedrequest", "internalerror",
    /// "trylater", "sigrequired", "unauthorized"; "(UNKNOWN)" for anything else).
    public var name: String {
        String(cString: OCSP_response_status_str(rawValue))
    }

    /// The responder's own trouble, which asking again later may not have.
    public var isTransient: Bool {
        self == .internalError || self == .tryLater
    }

    public var description: String { "\(name) (\(rawValue))" }
}
