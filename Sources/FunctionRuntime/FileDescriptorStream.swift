#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// stdin, stdout or stderr through read(2) and write(2): no buffering layer to flush, and
/// partial writes and EINTR handled here once.
public final class FileDescriptorStream: InputSource, OutputSink {
    /// A failed read(2) or write(2), with its errno.
    public struct Failure: Error, CustomStringConvertible {
        public let operation: String
        public let errorNumber: Int32
        public var description: String { "\(operation) failed with errno \(errorNumber)" }
    }

    public let descriptor: Int32

    public init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    public func read(limit: Int) throws -> [UInt8] {
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while result.count < limit {
            let wanted = min(chunk.count, limit - result.count)
            let count = chunk.withUnsafeMutableBytes { buffer in
                systemRead(descriptor, buffer.baseAddress, wanted)
            }
            if count > 0 {
                result.append(contentsOf: chunk[0..<count])
            } else if count == 0 {
                break
            } else if errno == EINTR {
                continue
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                waitUntilReady(events: Int16(POLLIN))
            } else {
                throw Failure(operation: "read", errorNumber: errno)
            }
        }
        return result
    }

    public func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in
                systemWrite(descriptor, buffer.baseAddress.map { $0 + offset }, bytes.count - offset)
            }
            if count >= 0 {
                offset += count
            } else if errno == EINTR {
                continue
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                waitUntilReady(events: Int16(POLLOUT))
            } else {
                throw Failure(operation: "write", errorNumber: errno)
            }
        }
    }

    /// Only for a descriptor someone made non-blocking: wait instead of spinning.
    private func waitUntilReady(events: Int16) {
        var request = pollfd(fd: descriptor, events: events, revents: 0)
        _ = poll(&request, 1, -1)
    }
}

// Free functions because inside the class `read` and `write` name its own methods.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}
