internal import COpenSSL

/// Owns one memory BIO, the in-memory stream OpenSSL's PEM reader and writers work on.
final class MemoryBIO {
    let pointer: OpaquePointer

    /// An empty BIO to write into.
    init() throws(CryptoError) {
        pointer = try OpenSSL.check(BIO_new(BIO_s_mem()), "BIO_new")
    }

    /// A BIO holding a copy of `bytes` (BIO_new_mem_buf would borrow Swift memory whose
    /// address is only stable inside a closure).
    convenience init(copying bytes: [UInt8]) throws(CryptoError) {
        try self.init()
        guard bytes.count <= Int(Int32.max) else {
            throw CryptoError(operation: "BIO_write", message: "input of \(bytes.count) bytes is too large")
        }
        let written = bytes.withUnsafeBytes { BIO_write(pointer, $0.baseAddress, Int32($0.count)) }
        if !bytes.isEmpty {
            try OpenSSL.check(written, "BIO_write")
        }
    }

    deinit { BIO_free(pointer) }

    /// Everything written so far (copied out; the BIO keeps its buffer).
    var contents: [UInt8] {
        var data: UnsafeMutablePointer<CChar>? = nil
        let length = shim_BIO_get_mem_data(pointer, &data)
        guard length > 0, let data else { return [] }
        return data.withMemoryRebound(to: UInt8.self, capacity: length) {
            Array(UnsafeBufferPointer(start: $0, count: length))
        }
    }
}
