import FoundationEssentials
import OpenSSLCrypto

/// Chains this process has already proven, keyed by their exact `x5c` text. A hit is only
/// used when the new validation time lies inside the window where every certificate of the
/// chain is valid, which is all the time-dependence path validation has; with online checks,
/// also only while the revocation status is still fresh.
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
    private var entries: [ChainID: Entry] = [:]

    func entry(leaf: String, intermediate: String) -> Entry? {
        entries[ChainID(leaf: leaf, intermediate: intermediate)]
    }

    mutating func insert(leaf: String, intermediate: String, _ entry: Entry) {
        if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
        entries[ChainID(leaf: leaf, intermediate: intermediate)] = entry
    }
}
