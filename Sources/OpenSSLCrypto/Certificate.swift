internal import COpenSSL
import FoundationEssentials
import Glibc

/// An X.509 certificate: an entry of a JWS `x5c` header (base64 DER), or a configured
/// trust anchor such as Apple Root CA - G3.
///
/// Immutable after init, so one instance can be shared across tasks.
///
/// Parsing costs more than it looks with OpenSSL 3.0 (d2i_X509 decodes the subject key
/// through the OSSL_DECODER chain, ~150 µs); callers that see the same certificates
/// repeatedly should cache by `sha256Fingerprint` of the DER rather than re-verify.
public final class Certificate: @unchecked Sendable, Equatable, CustomStringConvertible {
    let x509: X509Reference
    /// The DER encoding, exactly as given.
    public let der: [UInt8]
    public let notBefore: Date
    public let notAfter: Date

    /// Parses one DER certificate; trailing bytes are refused.
    public convenience init(der: [UInt8]) throws(CryptoError) {
        try OpenSSL.initialise()
        let x509 = try OpenSSL.decodeDER(der, "d2i_X509", decode: { d2i_X509(nil, $0, $1) }, free: { X509_free($0) })
        try self.init(x509: X509Reference(owning: x509), der: der)
    }

    /// Wraps a certificate object we hold a reference on; `der` is re-encoded when not given.
    init(x509: X509Reference, der: [UInt8]? = nil) throws(CryptoError) {
        self.notBefore = try Self.date(X509_get0_notBefore(x509.pointer), field: "notBefore")
        self.notAfter = try Self.date(X509_get0_notAfter(x509.pointer), field: "notAfter")
        if let der {
            self.der = der
        } else {
            self.der = try Self.encode(x509)
        }
        self.x509 = x509
    }

    /// Every "CERTIFICATE" block in `pem`, in order (other blocks are skipped). Throws
    /// when there is none.
    public static func certificates(fromPEM pem: String) throws(CryptoError) -> [Certificate] {
        try OpenSSL.initialise()
        var certificates: [Certificate] = []
        for block in try PEMBlock.parse(pem) where block.label == "CERTIFICATE" {
            certificates.append(try Certificate(der: block.der))
        }
        guard !certificates.isEmpty else {
            throw CryptoError(operation: "read certificate PEM", message: "no CERTIFICATE block found")
        }
        return certificates
    }

    /// Loads a file holding PEM certificates or one DER certificate, or every .pem, .cer,
    /// .crt and .der file of a directory (in name order). Meant for configuration time
    /// (the trust anchors), not the request path.
    public static func load(path: String) throws(CryptoError) -> [Certificate] {
        var certificates: [Certificate] = []
        for file in try certificateFiles(at: path) {
            certificates.append(contentsOf: try loadFile(file))
        }
        return certificates
    }

    /// The bytes of the files `load(path:)` reads, as they are on disk, unparsed: enough to
    /// tell one configuration of roots from another at the cost of reading a few small files.
    /// Runs in every process that verifies, so a plain file is read with open and read:
    /// FileManager's attribute dictionary costs more than the read itself.
    public static func fileContents(path: String) throws(CryptoError) -> [UInt8] {
        if let bytes = readRegularFile(path) { return Array(path.utf8) + [0] + bytes }
        var bytes: [UInt8] = []
        for file in try certificateFiles(at: path) {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw CryptoError(operation: "read \(file)", message: "cannot read the file")
            }
            bytes += Array(file.utf8) + [0] + Array(data)
        }
        return bytes
    }

    /// The whole content of a regular file; nil when `path` is not one (a folder) or cannot be read.
    private static func readRegularFile(_ path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return nil }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 { return nil }
            if count == 0 { return bytes }
            bytes += chunk[0..<count]
        }
    }

    /// `path` itself when it is a file, else its certificate files in name order.
    private static func certificateFiles(at path: String) throws(CryptoError) -> [String] {
        let fileManager = FileManager.default
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try fileManager.attributesOfItem(atPath: path)
        } catch {
            throw CryptoError(operation: "load certificates from \(path)", message: "\(error)")
        }
        guard attributes[.type] as? FileAttributeType == .typeDirectory else {
            return [path]
        }
        let names: [String]
        do {
            names = try fileManager.contentsOfDirectory(atPath: path)
        } catch {
            throw CryptoError(operation: "list certificates in \(path)", message: "\(error)")
        }
        let certificateExtensions = [".pem", ".cer", ".crt", ".der"]
        let files = names
            .filter { name in certificateExtensions.contains { name.lowercased().hasSuffix($0) } }
            .sorted()
        guard !files.isEmpty else {
            throw CryptoError(operation: "load certificates from \(path)", message: "no .pem, .cer, .crt or .der file")
        }
        return files.map { path.hasSuffix("/") ? path + $0 : path + "/" + $0 }
    }

    private static func loadFile(_ path: String) throws(CryptoError) -> [Certificate] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CryptoError(operation: "read \(path)", message: "cannot read the file")
        }
        let bytes = [UInt8](data)
        let text = String(decoding: bytes, as: UTF8.self)
        do {
            return text.contains("-----BEGIN ") ? try certificates(fromPEM: text) : [try Certificate(der: bytes)]
        } catch {
            throw CryptoError(operation: "\(error.operation) (\(path))", message: error.message)
        }
    }

    /// SHA-256 of the DER: the certificate's identity for caches and logs.
    public var sha256Fingerprint: [UInt8] { Digest.sha256(der) }

    /// Whether the certificate carries the extension `oid` (dotted form, e.g.
    /// "1.2.840.113635.100.6.11.1"), critical or not. A malformed OID is `false`.
    public func hasExtension(oid: String) -> Bool {
        guard let object = ASN1Object(dottedOID: oid) else { return false }
        return X509_get_ext_by_OBJ(x509.pointer, object.pointer, -1) >= 0
    }

    /// basicConstraints CA:TRUE.
    public var isCertificateAuthority: Bool {
        X509_get_extension_flags(x509.pointer) & UInt32(EXFLAG_CA) != 0
    }

    /// The subject name on one line (RFC 2253 form, control characters escaped), for logs.
    public var subjectSummary: String { Self.oneLine(X509_get_subject_name(x509.pointer)) }

    /// The issuer name on one line (RFC 2253 form), for logs.
    public var issuerSummary: String { Self.oneLine(X509_get_issuer_name(x509.pointer)) }

    /// Serial number in upper-case hex, as `openssl x509 -serial` prints it.
    public var serialNumberHex: String {
        guard let serial = X509_get0_serialNumber(x509.pointer) else { return "" }
        let count = Int(ASN1_STRING_length(serial))
        guard count > 0, let data = ASN1_STRING_get0_data(serial) else { return "00" }
        let digits = Array("0123456789ABCDEF".utf8)
        var hex: [UInt8] = ASN1_STRING_type(serial) == V_ASN1_NEG_INTEGER ? [UInt8(ascii: "-")] : []
        for byte in UnsafeBufferPointer(start: data, count: count) {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: hex, as: UTF8.self)
    }

    /// OCSP responder URLs from the Authority Information Access extension (may be empty).
    public var ocspResponderURLs: [String] {
        guard let stack = X509_get1_ocsp(x509.pointer) else {
            OpenSSL.discardErrors()
            return []
        }
        return OpenSSLStringStack(owning: stack).strings
    }

    /// The subject's key, which must be EC P-256 (the only kind that signs ES256).
    public func publicKey() throws(CryptoError) -> ECPublicKey {
        // X509_get_pubkey hands out a new reference (the key was decoded with the
        // certificate), which the EVPPKey takes over: no second parse.
        let key = EVPPKey(owning: try OpenSSL.check(X509_get_pubkey(x509.pointer), "X509_get_pubkey"))
        // get0-style: the X509_PUBKEY belongs to the certificate. Re-encoding it is plain
        // ASN.1 output, no encoder.
        let publicKeyInfo = try OpenSSL.check(X509_get_X509_PUBKEY(x509.pointer), "X509_get_X509_PUBKEY")
        let spki = try Self.encodeDER("i2d_X509_PUBKEY") { i2d_X509_PUBKEY(publicKeyInfo, $0) }
        return try ECPublicKey(validating: key, spkiDER: spki)
    }

    public var description: String {
        "Certificate(subject: \(subjectSummary), serial: \(serialNumberHex))"
    }

    public static func == (lhs: Certificate, rhs: Certificate) -> Bool {
        lhs.der == rhs.der
    }

    // MARK: - Helpers

    private static func encode(_ x509: X509Reference) throws(CryptoError) -> [UInt8] {
        try encodeDER("i2d_X509") { i2d_X509(x509.pointer, $0) }
    }

    /// Runs an i2d_* function twice: once for the length, once into a buffer of that size.
    /// Internal, not private: the OCSP messages are encoded the same way.
    static func encodeDER(
        _ operation: String, _ encode: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32
    ) throws(CryptoError) -> [UInt8] {
        let length = try OpenSSL.check(encode(nil), operation)
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return encode(&cursor)
        }
        guard try OpenSSL.check(written, operation) == length else {
            throw CryptoError(operation: operation, message: "wrote \(written) bytes, announced \(length)")
        }
        return der
    }

    private static func oneLine(_ name: OpaquePointer?) -> String {
        guard let name, let bio = try? MemoryBIO() else { return "" }
        // Returns the byte count (0 for an empty name) or -1.
        guard X509_NAME_print_ex(bio.pointer, name, 0, shim_XN_FLAG_RFC2253()) >= 0 else {
            OpenSSL.discardErrors()
            return ""
        }
        return String(decoding: bio.contents, as: UTF8.self)
    }

    /// ASN1_TIME (UTCTime or GeneralizedTime, always UTC in X.509) to Date.
    /// Internal, not private: OCSP's thisUpdate, nextUpdate and revocationTime use it too.
    static func date(_ time: UnsafePointer<ASN1_TIME>?, field: String) throws(CryptoError) -> Date {
        // ASN1_TIME_to_tm reads the wall clock when given NULL; never let it.
        guard let time else { throw CryptoError(operation: "read \(field)", message: "missing time") }
        var parts = tm()
        try OpenSSL.check(ASN1_TIME_to_tm(time, &parts), "ASN1_TIME_to_tm(\(field))")
        let days = daysSinceEpoch(
            year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday))
        let seconds = days * 86_400 + Int(parts.tm_hour) * 3_600 + Int(parts.tm_min) * 60 + Int(parts.tm_sec)
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// Proleptic Gregorian date to days since 1970-01-01 (H. Hinnant's days_from_civil),
    /// so no calendar or time-zone machinery is needed.
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
