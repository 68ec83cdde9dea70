/// Comparisons of secrets (tokens, nonces) whose time does not depend on the contents.
public enum ConstantTime {
    /// Compares every byte whatever the first difference, so the time taken does not tell an
    /// attacker how much of a guess was right. The length is not secret.
    public static func equals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in lhs.indices {
            difference |= lhs[index] ^ rhs[index]
        }
        return difference == 0
    }

    /// The same for the UTF-8 of two strings.
    public static func equals(_ lhs: String, _ rhs: String) -> Bool {
        equals(Array(lhs.utf8), Array(rhs.utf8))
    }
}
