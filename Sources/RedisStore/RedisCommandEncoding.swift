internal import CHiredis
import StorekeeperCore

/// hiredis's own command formatter (`redisFormatCommandArgv`), for transports other than a
/// redisContext: the RESP bytes of one command, binary-safe.
enum RedisCommandEncoding {
    static func encode(_ arguments: [[UInt8]]) throws(StoreError) -> [UInt8] {
        var joined: [UInt8] = []
        joined.reserveCapacity(arguments.reduce(0) { $0 + $1.count })
        var offsets: [Int] = []
        var lengths: [Int] = []
        for argument in arguments {
            offsets.append(joined.count)
            lengths.append(argument.count)
            joined.append(contentsOf: argument)
        }
        // hiredis allocates the formatted command; it is copied out and freed here.
        let bytes = joined.withUnsafeBytes { buffer -> [UInt8]? in
            var argv: [UnsafePointer<CChar>?] = offsets.map { offset in
                buffer.baseAddress.map { ($0 + offset).assumingMemoryBound(to: CChar.self) }
            }
            var target: UnsafeMutablePointer<CChar>?
            let length = redisFormatCommandArgv(&target, Int32(arguments.count), &argv, lengths)
            guard length >= 0, let target else { return nil }
            defer { redisFreeCommand(target) }
            return Array(UnsafeRawBufferPointer(start: target, count: Int(length)))
        }
        guard let bytes else { throw StoreError(.unavailable, "Redis: hiredis could not format a command (out of memory)") }
        return bytes
    }
}
