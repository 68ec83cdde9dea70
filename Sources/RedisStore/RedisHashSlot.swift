/// Which of Redis Cluster's 16,384 hash slots a key lives in: CRC16 (the XMODEM variant) of
/// its hash tag, or of the whole key when it has none, modulo 16,384, exactly as the
/// cluster specification gives it (https://redis.io/docs/latest/operate/oss_and_stack/reference/cluster-spec/#key-distribution-model).
/// A client that computes the slot itself sends each command to the right primary at once
/// instead of being redirected on every command.
enum RedisHashSlot {
    static let count = 16_384

    static func of(_ key: String) -> Int {
        of(bytes: QueueKeys.slotName(of: key))
    }

    /// The slot of the bytes Redis hashes (already reduced to the hash tag).
    static func of(bytes: [UInt8]) -> Int {
        Int(crc16(bytes)) & (count - 1)
    }

    /// CRC16-CCITT as XMODEM: polynomial 0x1021, initial value 0, no reflection.
    static func crc16(_ bytes: [UInt8]) -> UInt16 {
        var crc: UInt16 = 0
        for byte in bytes {
            crc = (crc << 8) ^ table[Int(UInt8(truncatingIfNeeded: crc >> 8) ^ byte)]
        }
        return crc
    }

    private static let table: [UInt16] = (0..<256).map { index in
        var crc = UInt16(index) << 8
        for _ in 0..<8 {
            crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1
        }
        return crc
    }
}
