internal import COpenSSL

/// A failed cryptographic operation: which step failed and what OpenSSL said about it.
///
/// `message` is OpenSSL's own error-queue text (or our explanation when the input was
/// refused before reaching OpenSSL). It never contains key material.
public struct CryptoError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The step that failed, e.g. "EVP_DigestSignInit" or "parse PKCS#8 private key".
    public let operation: String
    /// Why it failed.
    public let message: String

    public init(operation: String, message: String) {
        self.operation = operation
        self.message = message
    }

    public var description: String { "\(operation) failed: \(message)" }

    /// Builds an error from OpenSSL's thread-local error queue and empties the queue, so a
    /// stale entry never leaks into the next failure's message.
    static func fromErrorQueue(operation: String) -> CryptoError {
        var lines: [String] = []
        while true {
            var data: UnsafePointer<CChar>? = nil
            var flags: Int32 = 0
            let code = ERR_get_error_all(nil, nil, nil, &data, &flags)
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            var line = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if flags & ERR_TXT_STRING != 0, let data, data.pointee != 0 {
                line += " (\(String(cString: data)))"
            }
            lines.append(line)
        }
        return CryptoError(
            operation: operation,
            message: lines.isEmpty ? "OpenSSL reported no error detail" : lines.joined(separator: "; ")
        )
    }
}
