import FoundationEssentials
import OpenSSLCrypto

/// Whom a `reconcile` run asks Apple about.
public enum ReconciliationSelection: Sendable, Equatable {
    /// Every subscription that grants access or may soon (active, grace, billing retry), and
    /// the suspicious ones: a period that ended with no event after it (a renewal or expiry
    /// notification may have been lost), and subscriptions whose notifications failed to apply.
    case needsAttention
    /// These original transaction ids only.
    case explicit([String])
    /// Every subscription in the store.
    case all

    /// Names the run's cursor, so an explicit list resumes only the same list.
    public var cursorName: String {
        switch self {
        case .needsAttention: "attention"
        case .all: "all"
        case .explicit(let ids): "list-" + Hex.encode(Digest.sha256(Array(ids.sorted().joined(separator: "\n").utf8))).prefix(16)
        }
    }

    /// How far back an unexplained expiry is still worth a question: Apple's billing retry
    /// lasts up to 60 days, after which a lost renewal is no longer plausible.
    public static let suspiciousExpiryWindow: Int64 = 60 * 86_400_000
}
