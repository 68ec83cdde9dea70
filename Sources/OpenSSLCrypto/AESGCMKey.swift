internal import COpenSSL

/// An AES-256-GCM key that seals small secrets kept at rest (Sign in with Apple refresh
/// tokens in the store).
///
/// A sealed box is `nonce (12 bytes) || ciphertext || tag (16 bytes)`; every seal draws a
/// fresh random nonce, so sealing the same text twice gives different boxes. Opening checks
/// the tag before returning anything: a box changed by one bit, opened with another key or
/// under other associated data is refused.
///
/// Immutable after init, so one instance can be shared across tasks.
public final class AESGCMKey: @unchecked Sendable {
    public static let keyByteCount = 32
    public static let nonceByteCount = 12
    public static let tagByteCount = 16

    private let key: [UInt8]

    /// From exactly 32 key bytes.
    public init(bytes: [UInt8]) throws(CryptoError) {
        try OpenSSL.initialise()
        guard bytes.count == Self.keyByteCount else {
            throw CryptoError(operation: "import AES-256 key", message: "a key is \(Self.keyByteCount) bytes, not \(bytes.count)")
        }
        key = bytes
    }

    /// Encrypts and authenticates `plaintext`; `associatedData` is authenticated but not
    /// stored (the caller must give the same bytes to `open`, e.g. the record's key).
    public func seal(_ plaintext: [UInt8], authenticating associatedData: [UInt8] = []) throws(CryptoError) -> [UInt8] {
        let nonce = try SecureRandom.bytes(Self.nonceByteCount)
        let context = try start(.encrypt, nonce: nonce)
        var (ciphertext, written) = try Self.update(context, associatedData: associatedData, with: plaintext)
        var length: Int32 = 0
        let finalResult = ciphertext.withUnsafeMutableBufferPointer { buffer in
            EVP_CipherFinal_ex(context.pointer, buffer.baseAddress.map { $0 + written }, &length)
        }
        try OpenSSL.check(finalResult, "EVP_CipherFinal_ex (encrypt)")
        written += Int(length)
        var tag = [UInt8](repeating: 0, count: Self.tagByteCount)
        try OpenSSL.check(
            EVP_CIPHER_CTX_ctrl(context.pointer, EVP_CTRL_GCM_GET_TAG, Int32(Self.tagByteCount), &tag),
            "EVP_CIPHER_CTX_ctrl (get tag)")
        return nonce + ciphertext.prefix(written) + tag
    }

    /// Checks the tag and decrypts a box made by `seal`. Any change is an error; nothing of
    /// an unauthenticated box is ever returned.
    public func open(_ box: [UInt8], authenticating associatedData: [UInt8] = []) throws(CryptoError) -> [UInt8] {
        guard box.count >= Self.nonceByteCount + Self.tagByteCount else {
            throw CryptoError(operation: "open AES-GCM box", message: "a box is at least \(Self.nonceByteCount + Self.tagByteCount) bytes")
        }
        let nonce = Array(box.prefix(Self.nonceByteCount))
        let ciphertext = Array(box[Self.nonceByteCount..<(box.count - Self.tagByteCount)])
        var tag = Array(box.suffix(Self.tagByteCount))
        let context = try start(.decrypt, nonce: nonce)
        var (plaintext, written) = try Self.update(context, associatedData: associatedData, with: ciphertext)
        try OpenSSL.check(
            EVP_CIPHER_CTX_ctrl(context.pointer, EVP_CTRL_GCM_SET_TAG, Int32(Self.tagByteCount), &tag),
            "EVP_CIPHER_CTX_ctrl (set tag)")
        var length: Int32 = 0
        let finalResult = plaintext.withUnsafeMutableBufferPointer { buffer in
            EVP_CipherFinal_ex(context.pointer, buffer.baseAddress.map { $0 + written }, &length)
        }
        guard finalResult == 1 else {
            // A tag mismatch leaves nothing useful on the queue; say what it means.
            OpenSSL.discardErrors()
            throw CryptoError(operation: "open AES-GCM box", message: "authentication failed: wrong key, or the box was changed")
        }
        written += Int(length)
        return Array(plaintext.prefix(written))
    }

    /// EVP_CipherInit_ex's `enc` argument.
    private enum Direction: Int32 {
        case decrypt = 0
        case encrypt = 1
    }

    private func start(_ direction: Direction, nonce: [UInt8]) throws(CryptoError) -> EVPCipherContext {
        let context = try EVPCipherContext()
        try OpenSSL.check(EVP_CipherInit_ex(context.pointer, EVP_aes_256_gcm(), nil, key, nonce, direction.rawValue),
                          "EVP_CipherInit_ex")
        return context
    }

    /// Authenticates `associatedData`, then runs `input` through the cipher: the output
    /// buffer (room for the final block) and how much of it is written.
    private static func update(_ context: EVPCipherContext, associatedData: [UInt8],
                               with input: [UInt8]) throws(CryptoError) -> (output: [UInt8], written: Int) {
        var length: Int32 = 0
        if !associatedData.isEmpty {
            try OpenSSL.check(
                EVP_CipherUpdate(context.pointer, nil, &length, associatedData, Int32(associatedData.count)),
                "EVP_CipherUpdate (associated data)")
        }
        var output = [UInt8](repeating: 0, count: input.count + 16)
        guard !input.isEmpty else { return (output, 0) }
        try OpenSSL.check(EVP_CipherUpdate(context.pointer, &output, &length, input, Int32(input.count)), "EVP_CipherUpdate")
        return (output, Int(length))
    }
}
