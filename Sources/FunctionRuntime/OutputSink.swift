/// Where the runner writes responses and log lines: stdout and stderr for a process,
/// arrays in tests.
public protocol OutputSink: AnyObject {
    /// Writes all of `bytes` or throws.
    func write(_ bytes: [UInt8]) throws
}
