/// Unguessable tokens from the system's CSPRNG (leases today; states and sessions later).
public enum RandomToken {
    /// 128 random bits as 32 lowercase hex digits.
    public static func hex128() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        for word in [generator.next() as UInt64, generator.next() as UInt64] {
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
        }
        return Hex.encode(bytes)
    }

    /// 256 random bits as 64 lowercase hex digits: session ids, states, nonces.
    public static func hex256() -> String {
        hex128() + hex128()
    }
}
