internal import CCurl

/// What libcurl's header and write callbacks gather for one transfer: the final response's
/// header lines and its body, up to a cap.
///
/// libcurl reaches it through an Unmanaged pointer (CURLOPT_HEADERDATA, CURLOPT_WRITEDATA)
/// that does not retain it; the transfer's caller keeps it alive until curl_easy_perform
/// returns.
final class ResponseCollector {
    let maximumBodyBytes: Int
    /// Names lowercased, in order, of the latest response only.
    private(set) var headers: [(String, String)] = []
    private(set) var body: [UInt8] = []
    /// True when this side aborted the transfer because the body would exceed the cap.
    private(set) var exceededLimit = false
    /// Content-Length of the latest response, when it gave one we could read.
    private var declaredLength: Int?
    private var receivedBody = false

    init(maximumBodyBytes: Int) {
        self.maximumBodyBytes = max(0, maximumBodyBytes)
    }

    /// One raw header line, CRLF included. libcurl hands over every response it reads
    /// (1xx interim answers, each redirect, a proxy's CONNECT answer); a status line starts
    /// a new response, so only the final one's headers remain.
    func receiveHeaderLine(_ line: UnsafeRawBufferPointer) {
        var bytes = Array(line)[...]
        while let last = bytes.last, last == UInt8(ascii: "\r") || last == UInt8(ascii: "\n") {
            bytes = bytes.dropLast()
        }
        if bytes.starts(with: Self.statusLinePrefix) {
            headers.removeAll(keepingCapacity: true)
            declaredLength = nil
            return
        }
        guard let first = bytes.first else { return }  // the blank line ending a header block
        if first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") {
            // An obsolete folded line continues the previous header's value.
            if let index = headers.indices.last {
                headers[index].1 += " " + Self.text(Self.trimmed(bytes))
            }
            return
        }
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return }
        let name = Self.text(bytes[..<colon]).lowercased()
        let value = Self.text(Self.trimmed(bytes[(colon + 1)...]))
        if name == "content-length", declaredLength == nil {
            declaredLength = Int(value)
        }
        headers.append((name, value))
    }

    /// A piece of the body; false aborts the transfer. libcurl only passes the final
    /// response's body here (it skips the bodies of redirects it follows), so the declared
    /// length seen by the first call is the final response's.
    func receiveBody(_ chunk: UnsafeRawBufferPointer) -> Bool {
        if !receivedBody {
            receivedBody = true
            if let declaredLength {
                // Refuse before reading any of it when the server says it is too big.
                guard declaredLength <= maximumBodyBytes else {
                    exceededLimit = true
                    return false
                }
                body.reserveCapacity(declaredLength)
            }
        }
        guard chunk.count <= maximumBodyBytes - body.count else {
            exceededLimit = true
            return false
        }
        body.append(contentsOf: chunk)
        return true
    }

    private static let statusLinePrefix = Array("HTTP/".utf8)

    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let start = bytes.firstIndex(where: { !isSpace($0) }),
              let end = bytes.lastIndex(where: { !isSpace($0) }) else { return [] }
        return bytes[start...end]
    }

    private static func text(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }
}

extension ResponseCollector {
    /// CURLOPT_HEADERFUNCTION; the context is the collector (CURLOPT_HEADERDATA).
    static let headerCallback: curl_write_callback = { buffer, size, count, context in
        let (length, overflow) = size.multipliedReportingOverflow(by: count)
        guard !overflow, let buffer, let context else { return 0 }
        let collector = Unmanaged<ResponseCollector>.fromOpaque(context).takeUnretainedValue()
        collector.receiveHeaderLine(UnsafeRawBufferPointer(start: buffer, count: length))
        return length
    }

    /// CURLOPT_WRITEFUNCTION; the context is the collector (CURLOPT_WRITEDATA). Returning a
    /// count other than the one given makes libcurl stop with CURLE_WRITE_ERROR.
    static let bodyCallback: curl_write_callback = { buffer, size, count, context in
        let (length, overflow) = size.multipliedReportingOverflow(by: count)
        guard !overflow, let buffer, let context else { return 0 }
        let collector = Unmanaged<ResponseCollector>.fromOpaque(context).takeUnretainedValue()
        return collector.receiveBody(UnsafeRawBufferPointer(start: buffer, count: length)) ? length : 0
    }
}
