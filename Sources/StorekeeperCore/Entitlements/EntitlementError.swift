/// An event that cannot be applied to an entitlement (it lacks the ids that place it, or the
/// stored data it refers to is missing or does not decode): Apple's signed data checked out,
/// so this is ours to investigate, answered as an internal error.
public typealias EntitlementError = DomainError<EntitlementErrorKind>

public enum EntitlementErrorKind: String, ErrorKind {
    case notApplicable = "entitlement_not_applicable"

    public var disposition: ErrorDisposition { .internalFailure }
}

extension EntitlementError {
    public init(_ reason: String, fileID: String = #fileID, line: Int = #line) {
        self.init(.notApplicable, reason, fileID: fileID, line: line)
    }
}
