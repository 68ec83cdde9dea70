/// What linking a purchase to a user does, given who owns it already.
public enum LinkDecision: Sendable, Equatable {
    /// Nobody else owns it: it is (or becomes) the claimant's.
    case link
    /// Another user owns it and keeps it (keep-first).
    case keep(owner: String)
    /// It moves from its owner to the claimant (move-to-latest).
    case move(from: String)
}

extension TransferPolicy {
    /// The one place a transfer is decided. `mayTransfer`: the claim is a user's own, made
    /// now (a userId the backend vouches for, or the token of an ingested transaction); a
    /// notification or a reconciliation naming an old token never moves a purchase back.
    public func decide(owner: String?, claimant: String, mayTransfer: Bool) -> LinkDecision {
        guard let owner, owner != claimant else { return .link }
        return self == .moveToLatest && mayTransfer ? .move(from: owner) : .keep(owner: owner)
    }
}

/// What linking needs to apply the catalog's transfer policy and record a move in both
/// users' timelines: the catalog, who is calling and the function's clock.
public struct TransferContext: Sendable {
    public var catalog: Catalog
    public var actor: String
    /// Milliseconds: when the move is recorded as made.
    public var date: Int64

    public init(catalog: Catalog, actor: String, date: Int64) {
        self.catalog = catalog
        self.actor = actor
        self.date = date
    }

    /// The policy of the app the purchase belongs to; keep-first for an app the catalog does
    /// not serve.
    public func policy(bundleId: String) -> TransferPolicy {
        catalog.app(bundleId: bundleId)?.transfer ?? .keepFirst
    }
}
