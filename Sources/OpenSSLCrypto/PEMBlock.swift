internal import COpenSSL

/// One PEM block: its label ("CERTIFICATE", "PRIVATE KEY") and the DER bytes it wraps.
/// OpenSSL's PEM_read_bio does the base64; choosing the d2i_* for a label is ours, which
/// keeps key loading off OpenSSL 3's slower OSSL_DECODER path where we can.
struct PEMBlock {
    let label: String
    let der: [UInt8]

    /// Every block in `text`, in order. Text outside blocks is ignored, as OpenSSL does;
    /// a damaged or encrypted block is an error.
    static func parse(_ text: String) throws(CryptoError) -> [PEMBlock] {
        let bio = try MemoryBIO(copying: Array(text.utf8))
        var blocks: [PEMBlock] = []
        while true {
            var name: UnsafeMutablePointer<CChar>? = nil
            var header: UnsafeMutablePointer<CChar>? = nil
            var data: UnsafeMutablePointer<UInt8>? = nil
            var length = 0
            let result = PEM_read_bio(bio.pointer, &name, &header, &data, &length)
            // Take ownership of the three OPENSSL_malloc'd outputs before anything can throw.
            let nameBuffer = OpenSSLBuffer.owning(name)
            let headerBuffer = OpenSSLBuffer.owning(header)
            let dataBuffer = OpenSSLBuffer.owning(data)
            if result == 0 {
                // "No start line" is how PEM_read_bio reports the end of the input.
                let error = ERR_peek_last_error()
                if ERR_GET_LIB(error) == ERR_LIB_PEM, ERR_GET_REASON(error) == PEM_R_NO_START_LINE {
                    OpenSSL.discardErrors()
                    break
                }
            }
            try OpenSSL.check(result, "PEM_read_bio")
            if let headerBuffer, !headerBuffer.string.isEmpty {
                throw CryptoError(operation: "read PEM", message: "encrypted or annotated PEM blocks are not supported")
            }
            blocks.append(PEMBlock(label: nameBuffer?.string ?? "", der: dataBuffer?.bytes(count: length) ?? []))
        }
        return blocks
    }

    /// The first block whose label is one of `labels`; other blocks (such as the
    /// "EC PARAMETERS" block `openssl ecparam -genkey` writes first) are skipped.
    static func first(in text: String, labels: [String], describing what: String) throws(CryptoError) -> PEMBlock {
        let blocks = try parse(text)
        guard let block = blocks.first(where: { labels.contains($0.label) }) else {
            let found = blocks.map(\.label)
            throw CryptoError(
                operation: "read \(what) PEM",
                message: "expected a block labelled \(labels.joined(separator: " or ")), found "
                    + (found.isEmpty ? "no PEM block" : found.joined(separator: ", ")))
        }
        return block
    }
}
