import FoundationEssentials
import OpenSSLCrypto

/// Chains this process has already proven, keyed by their exact `x5c` text. A hit is only
/// used when the new validation time lies inside the window where every certificate of the
/// chain is valid, which is all the time-dependence path validation has without online checks.
struct VerifiedChainCache {
    private struct Entry {
        let key: ECPublicKey
        let validFrom: Date
        let validUntil: Date
    }

    private struct ChainID: Hashable {
        let leaf: String
        let intermediate: String
    }

    /// Apple rotates leaf certificates rarely; a bound keeps a hostile batch from growing memory.
    private static let capacity = 16
    private var entries: [ChainID: Entry] = [:]

    func leafKey(leaf: String, intermediate: String, at time: Date) -> ECPublicKey? {
        guard let entry = entries[ChainID(leaf: leaf, intermediate: intermediate)],
              entry.validFrom <= time, time <= entry.validUntil
        else { return nil }
        return entry.key
    }

    mutating func insert(leaf: String, intermediate: String, key: ECPublicKey, validFrom: Date, validUntil: Date) {
        if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
        entries[ChainID(leaf: leaf, intermediate: intermediate)] = Entry(key: key, validFrom: validFrom, validUntil: validUntil)
    }
}
