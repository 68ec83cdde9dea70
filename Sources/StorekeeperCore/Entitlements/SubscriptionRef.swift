/// Names one subscription (or one non-consumable) across the deployment: the app it belongs
/// to and its original transaction id. Two apps never share a record, even when test
/// environments hand out the same small ids to both.
///
/// Stored in sets as `<bundleId>/<originalTransactionId>`: a bundle id has no `/` (Apple
/// allows letters, digits, hyphens and periods), so the text splits back unambiguously.
public struct SubscriptionRef: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var bundleId: String
    public var originalTransactionId: String

    public init(bundleId: String, originalTransactionId: String) {
        self.bundleId = bundleId
        self.originalTransactionId = originalTransactionId
    }

    /// Reads a set member back; nil for text this type never wrote.
    public init?(member: String) {
        guard let slash = member.firstIndex(of: "/") else { return nil }
        let bundleId = String(member[..<slash])
        let originalTransactionId = String(member[member.index(after: slash)...])
        guard !bundleId.isEmpty, !originalTransactionId.isEmpty else { return nil }
        self.init(bundleId: bundleId, originalTransactionId: originalTransactionId)
    }

    /// The set member's text.
    public var member: String { bundleId + "/" + originalTransactionId }

    public var description: String { member }

    /// By app, then by id: the order reconciliation walks and answers list.
    public static func < (lhs: SubscriptionRef, rhs: SubscriptionRef) -> Bool {
        lhs.bundleId != rhs.bundleId ? lhs.bundleId < rhs.bundleId : lhs.originalTransactionId < rhs.originalTransactionId
    }
}
