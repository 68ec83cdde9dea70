import FunctionRuntime

/// An in-memory `InputSource` and `OutputSink`, for running a function inside a test.
public final class ByteBuffer: InputSource, OutputSink {
    public private(set) var bytes: [UInt8]
    private var readOffset = 0

    public init(_ bytes: [UInt8] = []) {
        self.bytes = bytes
    }

    public func read(limit: Int) throws -> [UInt8] {
        let end = min(bytes.count, readOffset + max(0, limit))
        let chunk = Array(bytes[readOffset..<end])
        readOffset = end
        return chunk
    }

    public func write(_ bytes: [UInt8]) throws {
        self.bytes.append(contentsOf: bytes)
    }
}
