/// Lease tokens: 128 random bits in hex, so a worker whose lease expired cannot guess or
/// collide with the token of whoever claimed the job next.
enum LeaseToken {
    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return hex(generator.next() as UInt64) + hex(generator.next() as UInt64)
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
