/// The last event applied to an entitlement, as `get-entitlements` reports it.
public struct EventSummary: Codable, Sendable, Equatable, Hashable {
    public var id: String
    public var source: AppleFact.Source
    public var type: String?
    public var subtype: String?
    public var signedDate: Int64

    init(_ event: AppleFact) {
        id = event.id
        source = event.source
        type = event.type
        subtype = event.subtype
        signedDate = event.signedDate
    }

    /// Later signed wins; for the same instant the larger id, so the choice does not depend
    /// on arrival order.
    func isNewer(than other: EventSummary) -> Bool {
        if signedDate != other.signedDate { return signedDate > other.signedDate }
        return id > other.id
    }
}
