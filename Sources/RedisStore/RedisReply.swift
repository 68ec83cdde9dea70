internal import CHiredis

/// Owns one redisReply tree returned by hiredis and frees it in `deinit`. Its elements
/// belong to the root, so only the root is ever wrapped; `value` copies the whole tree out.
final class RedisReply {
    private let pointer: UnsafeMutablePointer<redisReply>

    /// Takes ownership of `pointer`: nothing else may free it.
    init(owning pointer: UnsafeMutablePointer<redisReply>) {
        self.pointer = pointer
    }

    deinit { freeReplyObject(pointer) }

    /// The reply as a Swift value; safe to keep after this object is gone.
    var value: RedisValue { Self.value(of: UnsafePointer(pointer)) }

    private static func value(of reply: UnsafePointer<redisReply>) -> RedisValue {
        let node = reply.pointee
        switch node.type {
        case REDIS_REPLY_STRING:
            return .string(bytes(node.str, node.len))
        case REDIS_REPLY_INTEGER:
            return .integer(Int64(node.integer))
        case REDIS_REPLY_NIL:
            return .null
        case REDIS_REPLY_STATUS:
            return .status(String(decoding: bytes(node.str, node.len), as: UTF8.self))
        case REDIS_REPLY_ERROR:
            return .error(String(decoding: bytes(node.str, node.len), as: UTF8.self))
        case REDIS_REPLY_ARRAY:
            guard let elements = node.element else { return .array([]) }
            var values: [RedisValue] = []
            values.reserveCapacity(node.elements)
            for index in 0..<node.elements {
                // hiredis never stores a NULL element; treat one as nil rather than trust it.
                guard let element = elements[index] else {
                    values.append(.null)
                    continue
                }
                values.append(value(of: UnsafePointer(element)))
            }
            return .array(values)
        default:
            return .error("ERR hiredis returned reply type \(node.type), which this adapter does not know")
        }
    }

    private static func bytes(_ start: UnsafeMutablePointer<CChar>?, _ count: Int) -> [UInt8] {
        guard let start, count > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: start, count: count))
    }
}
