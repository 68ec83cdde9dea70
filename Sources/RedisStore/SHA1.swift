/// SHA-1, only to name Lua scripts the way Redis does (EVALSHA): a cache key, not a security
/// measure. Computed here because this module may not reach for OpenSSL (one fence per C
/// library, and no fence imports another) and a precomputed constant would silently go stale
/// whenever a script is edited.
enum SHA1 {
    /// The 40 lowercase hex digits Redis' `SCRIPT LOAD` answers for the same bytes.
    static func hexDigest(_ message: [UInt8]) -> String {
        var state: (UInt32, UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0)
        var padded = message
        padded.append(0x80)
        while padded.count % 64 != 56 { padded.append(0) }
        let bitCount = UInt64(message.count) &* 8
        for shift in stride(from: 56, through: 0, by: -8) {
            padded.append(UInt8(truncatingIfNeeded: bitCount >> UInt64(shift)))
        }

        var schedule = [UInt32](repeating: 0, count: 80)
        for block in stride(from: 0, to: padded.count, by: 64) {
            for index in 0..<16 {
                let at = block + index * 4
                schedule[index] = UInt32(padded[at]) << 24 | UInt32(padded[at + 1]) << 16
                    | UInt32(padded[at + 2]) << 8 | UInt32(padded[at + 3])
            }
            for index in 16..<80 {
                schedule[index] = rotateLeft(schedule[index - 3] ^ schedule[index - 8] ^ schedule[index - 14] ^ schedule[index - 16], 1)
            }
            var (a, b, c, d, e) = state
            for index in 0..<80 {
                let mixed: UInt32
                let constant: UInt32
                switch index {
                case 0..<20: mixed = (b & c) | (~b & d); constant = 0x5A82_7999
                case 20..<40: mixed = b ^ c ^ d; constant = 0x6ED9_EBA1
                case 40..<60: mixed = (b & c) | (b & d) | (c & d); constant = 0x8F1B_BCDC
                default: mixed = b ^ c ^ d; constant = 0xCA62_C1D6
                }
                let next = rotateLeft(a, 5) &+ mixed &+ e &+ constant &+ schedule[index]
                e = d
                d = c
                c = rotateLeft(b, 30)
                b = a
                a = next
            }
            state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e)
        }

        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        hex.reserveCapacity(40)
        for word in [state.0, state.1, state.2, state.3, state.4] {
            for shift in stride(from: 28, through: 0, by: -4) {
                hex.append(digits[Int((word >> UInt32(shift)) & 0xF)])
            }
        }
        return String(decoding: hex, as: UTF8.self)
    }

    private static func rotateLeft(_ value: UInt32, _ count: UInt32) -> UInt32 {
        value << count | value >> (32 - count)
    }
}
