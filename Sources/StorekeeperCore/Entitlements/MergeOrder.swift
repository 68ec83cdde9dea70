import FoundationEssentials

/// A total order on values that carry the same signing time, so that merging versions is
/// commutative: two different versions signed in the same millisecond are settled by their
/// encoded content, the same way whichever arrived first.
enum MergeOrder {
    static func isGreater<Value: Encodable>(_ lhs: Value, than rhs: Value) -> Bool {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let left = try? encoder.encode(lhs), let right = try? encoder.encode(rhs) else { return false }
        return left.lexicographicallyPrecedes(right) == false && left != right
    }
}
