/// Where one export-data consumer stands (`StoreKeys.exportCursor`): the event-log sequence
/// up to which everything was exported, and a full transactions export under way. Written
/// only after the run's output is complete, so a killed run is repeated, never skipped.
public struct ExportCursor: StoreRecord, Equatable, Sendable {
    /// What a cursor exports; a cursor serves one kind only.
    public enum Kind: String, Codable, Sendable, CaseIterable {
        case transactions
        case events
    }

    /// A full transactions export that needs more runs (it stopped at the run's limit).
    public struct FullWalk: Codable, Equatable, Sendable {
        /// The log's last sequence when the walk began: incremental runs start there once
        /// it is done, so what changed during the walk is exported again, never missed.
        public var sequence: Int64
        /// The last subscription or consumable purchase written (`ExportPosition.key`).
        public var after: String
    }

    public var of: Kind
    /// Every event up to this one is exported (for transactions: the transactions it named).
    public var sequence: Int64
    public var full: FullWalk?
    /// When it was last written (milliseconds, the function's clock).
    public var updatedAt: Int64
}

/// A place in a full walk: every subscription (by app, then original transaction id), then
/// every consumable purchase (by app, then transaction id).
struct ExportPosition: Comparable {
    enum Section: Int { case subscription, consumable }

    var section: Section
    var reference: SubscriptionRef

    /// `s:<bundleId>/<originalTransactionId>` or `c:<bundleId>/<transactionId>`.
    var key: String { (section == .subscription ? "s:" : "c:") + reference.member }

    init(_ section: Section, _ reference: SubscriptionRef) {
        self.section = section
        self.reference = reference
    }

    init?(key: String) {
        let section: Section
        switch key.prefix(2) {
        case "s:": section = .subscription
        case "c:": section = .consumable
        default: return nil
        }
        guard let reference = SubscriptionRef(member: String(key.dropFirst(2))) else { return nil }
        self.init(section, reference)
    }

    static func < (lhs: ExportPosition, rhs: ExportPosition) -> Bool {
        lhs.section != rhs.section ? lhs.section.rawValue < rhs.section.rawValue : lhs.reference < rhs.reference
    }
}
