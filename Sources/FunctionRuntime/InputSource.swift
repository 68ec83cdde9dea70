/// Where the runner reads request bytes: stdin for a process, an array in tests
/// (StorekeeperTesting's `ByteBuffer`).
public protocol InputSource: AnyObject {
    /// Reads until `limit` bytes or the end of input, whichever comes first.
    func read(limit: Int) throws -> [UInt8]
}
