import FoundationEssentials
import OpenSSLCrypto

/// Chains this process has already proven, keyed by their exact `x5c` text. A hit is only
/// used when the new validation time lies inside the window where every certificate of the
/// chain is valid, which is all the time-dependence path validation has; with online checks,
/// also only while the revocation status is still fresh.
///
/// A long-running process (FastCGI) keeps an entry no longer than the store keeps its copy
/// (`CachedChain.lifetime`, and with online checks the revocation freshness the verifier
/// checks besides), and at most `capacity` of them.
struct VerifiedChainCache {
    struct Entry {
        let key: ECPublicKey
        let validFrom: Date
        let validUntil: Date
        /// With online checks: until when leaf and intermediate are known good.
        let revocationFreshUntil: Date?
        let revocation: RevocationOutcome

        func covers(_ time: Date) -> Bool {
            validFrom <= time && time <= validUntil
        }
    }

    private struct ChainID: Hashable {
        let leaf: String
        let intermediate: String
    }

    /// Apple rotates leaf certificates rarely; a bound keeps a hostile batch from growing memory.
    private static let capacity = 16
    private var entries: [ChainID: (entry: Entry, expiresAt: Date)] = [:]

    /// The entry, unless it was kept longer than the store keeps its copy at `now`.
    func entry(leaf: String, intermediate: String, now: Date) -> Entry? {
        guard let kept = entries[ChainID(leaf: leaf, intermediate: intermediate)], now < kept.expiresAt else { return nil }
        return kept.entry
    }

    mutating func insert(leaf: String, intermediate: String, _ entry: Entry, now: Date) {
        if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
        let lifetime = Double(CachedChain.lifetime.components.seconds)
        entries[ChainID(leaf: leaf, intermediate: intermediate)] = (entry, now.addingTimeInterval(lifetime))
    }
}
