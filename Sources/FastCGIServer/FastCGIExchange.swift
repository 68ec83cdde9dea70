/// One FastCGI request while it is open: its parameters, its body (FCGI_STDIN) and its answer
/// (FCGI_STDOUT, a CGI response). Valid until its listener finishes it or accepts the next.
public final class FastCGIExchange {
    /// The CGI variables and HTTP_* headers the web server sent for this request only.
    public let parameters: [String: String]
    private let listener: FastCGIListener
    private let generation: Int

    init(listener: FastCGIListener, generation: Int, parameters: [String: String]) {
        self.listener = listener
        self.generation = generation
        self.parameters = parameters
    }

    /// Reads until `limit` bytes or the end of the body, whichever comes first.
    public func read(limit: Int) throws -> [UInt8] {
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: min(max(limit, 0), 64 * 1024))
        while result.count < limit {
            let wanted = min(chunk.count, limit - result.count)
            let count = try chunk.withUnsafeMutableBytes { buffer in
                try listener.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<wanted]), generation: generation)
            }
            result.append(contentsOf: chunk[0..<count])
            if count < wanted { break }
        }
        return result
    }

    /// Writes all of `bytes` to the answer or throws.
    public func write(_ bytes: [UInt8]) throws {
        var offset = 0
        // FCGX_PutStr takes an int count: large answers go in pieces.
        while offset < bytes.count {
            let end = min(bytes.count, offset + (1 << 30))
            try bytes.withUnsafeBytes { buffer in
                try listener.write(UnsafeRawBufferPointer(rebasing: buffer[offset..<end]), generation: generation)
            }
            offset = end
        }
    }
}
