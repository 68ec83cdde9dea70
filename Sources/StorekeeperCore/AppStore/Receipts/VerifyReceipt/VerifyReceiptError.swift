/// Why verifyReceipt gave no usable answer.
public struct VerifyReceiptError: CodedError, Equatable {
    public enum Kind: String, Sendable {
        /// Apple answered with a status other than 0 / 21006 (the receipt, the secret...).
        case rejected = "VERIFY_RECEIPT_REJECTED"
        /// Apple could not be reached, answered 5xx, or a temporary status (21005, 21009, 211xx).
        case unavailable = "VERIFY_RECEIPT_UNAVAILABLE"
        /// An answer that is not a verifyReceipt body.
        case invalidResponse = "VERIFY_RECEIPT_INVALID_RESPONSE"
    }

    public let kind: Kind
    public let reason: String
    /// Apple's status, when one came back.
    public let status: VerifyReceiptStatus?

    public init(_ kind: Kind, _ reason: String, status: VerifyReceiptStatus? = nil) {
        self.kind = kind
        self.reason = reason
        self.status = status
    }

    public var code: String { kind.rawValue }
    public var isRetryable: Bool { kind != .rejected }

    public static func == (lhs: VerifyReceiptError, rhs: VerifyReceiptError) -> Bool { lhs.kind == rhs.kind && lhs.status == rhs.status }
}
