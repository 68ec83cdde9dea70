/// Why verifyReceipt gave no usable answer.
public typealias VerifyReceiptError = DomainError<VerifyReceiptErrorKind>

public enum VerifyReceiptErrorKind: String, ErrorKind {
    /// Apple answered with a status other than 0 / 21006 (the receipt, the secret...).
    case rejected = "verify_receipt_rejected"
    /// Apple could not be reached, answered 5xx, or a temporary status (21005, 21009, 211xx).
    case unavailable = "verify_receipt_unavailable"
    /// An answer that is not a verifyReceipt body.
    case invalidResponse = "verify_receipt_invalid_response"

    public var disposition: ErrorDisposition { self == .rejected ? .badInput : .retryLater }
}

extension VerifyReceiptError {
    public init(_ kind: VerifyReceiptErrorKind, _ reason: String, status: VerifyReceiptStatus?,
                fileID: String = #fileID, line: Int = #line) {
        self.init(kind, reason, subject: status.map { String($0.rawValue) }, fileID: fileID, line: line)
    }

    /// Apple's status, when one came back.
    public var status: VerifyReceiptStatus? { subject.flatMap { Int($0) }.map(VerifyReceiptStatus.init(rawValue:)) }
}
