import Foundation
import Glibc

/// A listening Unix socket made by the test, to hand to FastCGI children as their stdin (what
/// spawn-fcgi -F N does): several children on one socket, each a SpawnedProcess of the test.
public final class UnixListeningSocket: @unchecked Sendable {
    public let path: String
    public private(set) var descriptor: Int32

    public init(path: String) throws {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw SpawnedProcess.Failure("socket path too long: \(path)") }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw SpawnedProcess.Failure("socket: errno \(errno)") }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(descriptor, 1024) == 0 else {
            let failure = errno
            Glibc.close(descriptor)
            throw SpawnedProcess.Failure("bind/listen \(path): errno \(failure)")
        }
        self.path = path
        self.descriptor = descriptor
    }

    /// The children hold their own copies; the test's is closed once they are started.
    public func close() {
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }

    deinit { close() }
}
