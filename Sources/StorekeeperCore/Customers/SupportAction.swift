/// Who did a support operation, when and why: what the audit trail records of it. `date` is
/// the function's clock (milliseconds), `actor` the name of the token the caller presented.
public struct SupportAction: Sendable, Equatable {
    public var actor: String
    public var date: Int64
    /// Required for grants, revocations and deletions; optional for merges.
    public var reason: String?

    public init(actor: String, date: Int64, reason: String?) {
        self.actor = actor
        self.date = date
        self.reason = reason
    }

    /// The timeline's line for this operation; `id` names the happening, so a rerun of the
    /// same operation records nothing twice.
    func entry(id: String, type: String, entitlement: String? = nil, otherUserId: String? = nil) -> HistoryEntry {
        HistoryEntry(id: id, date: date, type: type, source: "support", actor: actor, reason: reason,
                     entitlement: entitlement, otherUserId: otherUserId)
    }
}
