/// A support operation refused: the request names something the deployment or the customer
/// does not have, or asks what cannot be done.
public typealias SupportError = DomainError<SupportErrorKind>

public enum SupportErrorKind: String, ErrorKind {
    /// The catalog has no such entitlement (an implied catalog takes any name).
    case unknownEntitlement = "unknown_entitlement"
    /// The customer has no grant with this id.
    case grantNotFound = "grant_not_found"
    /// Storekeeper knows nothing of this user.
    case customerNotFound = "not_found"
    /// The customer was deleted (`delete-customer`): nothing more is done to it.
    case customerDeleted = "customer_deleted"
    /// merge-customers: an id already merged into another one, or merged the other way.
    case alreadyMerged = "already_merged"
    /// A request that cannot be done as asked (a grant that ends before it starts or names
    /// an app the deployment does not serve, a merge of an id into itself): answered like any other invalid request.
    case invalidRequest = "invalid_request"

    public var disposition: ErrorDisposition {
        switch self {
        case .unknownEntitlement, .alreadyMerged, .invalidRequest: .badInput
        case .customerNotFound, .grantNotFound, .customerDeleted: .caller(.notFound)
        }
    }
}
