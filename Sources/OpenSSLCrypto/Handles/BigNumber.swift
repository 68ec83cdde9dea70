internal import COpenSSL

/// Owns one BIGNUM, as returned by EVP_PKEY_get_bn_param.
final class BigNumber {
    let pointer: OpaquePointer

    init(owning pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit { BN_free(pointer) }

    /// Minimal big-endian magnitude (empty for zero).
    var bigEndianBytes: [UInt8] {
        let count = (Int(BN_num_bits(pointer)) + 7) / 8
        guard count > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: count)
        let written = Int(BN_bn2bin(pointer, &bytes))
        return Array(bytes.prefix(written))
    }

    /// Big-endian magnitude left-padded with zeros to exactly `width` bytes.
    func bigEndianBytes(paddedTo width: Int) throws(CryptoError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: width)
        // BN_bn2binpad answers -1 when the number does not fit.
        let written = try OpenSSL.check(BN_bn2binpad(pointer, &bytes, Int32(width)), "BN_bn2binpad(\(width))")
        guard written == Int32(width) else {
            throw CryptoError(operation: "BN_bn2binpad", message: "wrote \(written) of \(width) bytes")
        }
        return bytes
    }
}
