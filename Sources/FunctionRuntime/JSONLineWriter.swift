import StorekeeperCore

/// Builds one JSON object by hand with its keys in the order given, so log lines read
/// `ts, level, fn, event, ...` and cost no encoder.
struct JSONLineWriter {
    private(set) var bytes: [UInt8] = [UInt8(ascii: "{")]
    private var isFirst = true

    mutating func field(_ key: String, _ value: LogValue) {
        if !isFirst { bytes.append(UInt8(ascii: ",")) }
        isFirst = false
        appendString(key)
        bytes.append(UInt8(ascii: ":"))
        switch value {
        case .string(let text):
            appendString(text)
        case .integer(let number):
            bytes.append(contentsOf: String(number).utf8)
        case .double(let number):
            // JSON has no NaN or infinity; write those as text rather than break the line.
            if number.isFinite {
                bytes.append(contentsOf: String(number).utf8)
            } else {
                appendString(String(number))
            }
        case .bool(let flag):
            bytes.append(contentsOf: (flag ? "true" : "false").utf8)
        }
    }

    func finished() -> [UInt8] {
        bytes + [UInt8(ascii: "}"), UInt8(ascii: "\n")]
    }

    private mutating func appendString(_ text: String) {
        JSONObjectBuilder.appendString(text, to: &bytes)
    }
}
