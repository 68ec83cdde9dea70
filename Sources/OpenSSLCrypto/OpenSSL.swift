internal import COpenSSL

/// Library set-up and the one place C return codes are turned into errors.
enum OpenSSL {
    /// Swift runs a global's initialiser once, atomically, on first use; nil means success.
    /// NO_LOAD_CONFIG: a request-per-process function must not read openssl.cnf every start.
    private static let initialisationFailure: CryptoError? = {
        if OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_LOAD_CONFIG), nil) == 1 { return nil }
        return CryptoError.fromErrorQueue(operation: "OPENSSL_init_crypto")
    }()

    /// Call before the first OpenSSL use on every public path; cheap after the first time.
    static func initialise() throws(CryptoError) {
        if let initialisationFailure { throw initialisationFailure }
    }

    /// OpenSSL's convention: a positive result is success; 0 or negative leaves the reason
    /// on the error queue. Returns the result so lengths can be used directly.
    @discardableResult
    static func check(_ result: Int32, _ operation: @autoclosure () -> String) throws(CryptoError) -> Int32 {
        guard result > 0 else { throw CryptoError.fromErrorQueue(operation: operation()) }
        return result
    }

    /// A NULL return is failure, with the reason on the error queue.
    static func check<Pointer>(_ pointer: Pointer?, _ operation: @autoclosure () -> String) throws(CryptoError) -> Pointer {
        guard let pointer else { throw CryptoError.fromErrorQueue(operation: operation()) }
        return pointer
    }

    /// For paths that answer a plain "no" (an invalid signature): drop whatever OpenSSL
    /// queued so it cannot be misreported by a later, unrelated failure.
    static func discardErrors() {
        ERR_clear_error()
    }
}

extension OpenSSL {
    /// Runs a d2i_* function over the whole of `der`. Trailing bytes are refused: two
    /// different byte strings must never decode to the same object.
    static func decodeDER<Object>(
        _ der: [UInt8],
        _ operation: String,
        decode: (UnsafeMutablePointer<UnsafePointer<UInt8>?>, Int) -> Object?,
        free: (Object) -> Void
    ) throws(CryptoError) -> Object {
        guard !der.isEmpty else { throw CryptoError(operation: operation, message: "empty input") }
        let (object, consumed) = der.withUnsafeBufferPointer { buffer -> (Object?, Int) in
            guard let base = buffer.baseAddress else { return (nil, 0) }
            var cursor: UnsafePointer<UInt8>? = base
            let object = decode(&cursor, buffer.count)
            return (object, cursor.map { $0 - base } ?? 0)
        }
        let decoded = try check(object, operation)
        guard consumed == der.count else {
            free(decoded)
            throw CryptoError(operation: operation, message: "\(der.count - consumed) trailing bytes after the DER value")
        }
        return decoded
    }
}
