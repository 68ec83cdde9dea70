/// The one shape of Storekeeper's errors: a typed kind from one domain's vocabulary, a reason
/// for the log, and where it was made. Code and disposition come from the kind, so a domain
/// declares only its `ErrorKind` enum and a typealias (`typealias StoreError =
/// DomainError<StoreErrorKind>`); extensions on that typealias add its own factories.
///
/// Equality is by kind: the code is the contract, the reason is prose (as `HTTPClientError`
/// in async-http-client and `CertificateError` in swift-certificates compare).
public struct DomainError<Vocabulary: ErrorKind>: CodedError, Equatable, Sendable {
    /// Spelled `StoreError.Kind` at the use site.
    public typealias Kind = Vocabulary

    public let kind: Kind
    public let reason: String
    /// The value the failure is about, for code that acts on it (the environment that is not
    /// accepted, Apple's verifyReceipt status); nil for most. Domain extensions type it.
    public let subject: String?
    public let origin: ErrorOrigin

    public init(_ kind: Kind, _ reason: String, subject: String? = nil, fileID: String = #fileID, line: Int = #line) {
        self.kind = kind
        self.reason = reason
        self.subject = subject
        self.origin = ErrorOrigin(fileID: fileID, line: line)
    }

    public var code: String { kind.rawValue }
    public var disposition: ErrorDisposition { kind.disposition }

    public static func == (lhs: DomainError, rhs: DomainError) -> Bool { lhs.kind == rhs.kind }
}
