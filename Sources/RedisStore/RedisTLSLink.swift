import OpenSSLCrypto
import StorekeeperCore

/// `rediss://`: RESP over a `TLSClientConnection`, formatted by hiredis's
/// `redisFormatCommandArgv` and parsed by its `redisReader` (see `RedisLink` for why).
/// Every read and write is bounded by the store's timeout, like hiredis's context.
final class RedisTLSLink: RedisLink {
    private let connection: TLSClientConnection
    private let reader: RedisReader
    private var readerFailed = false

    init(_ url: RedisURL, options: TLSClientOptions, timeout: Duration) throws(StoreError) {
        do {
            connection = try TLSClientConnection(host: url.host, port: url.port, options: options, timeout: timeout)
        } catch {
            throw Self.storeError(error, "connect")
        }
        reader = try RedisReader()
    }

    var isBroken: Bool { readerFailed || connection.isBroken }

    func pipeline(_ commands: [[[UInt8]]]) throws(StoreError) -> [RedisValue] {
        var bytes: [UInt8] = []
        for arguments in commands {
            bytes += try RedisCommandEncoding.encode(arguments)
        }
        do {
            try connection.write(bytes)
        } catch {
            throw Self.storeError(error, "send")
        }
        var values: [RedisValue] = []
        values.reserveCapacity(commands.count)
        while values.count < commands.count {
            do throws(StoreError) {
                if let reply = try reader.next() {
                    values.append(reply.value)
                    continue
                }
                try reader.feed(try read())
            } catch {
                // Bytes that are not RESP leave the reader, and so the link, unusable.
                if !connection.isBroken { readerFailed = true }
                throw error
            }
        }
        return values
    }

    private func read() throws(StoreError) -> [UInt8] {
        do {
            return try connection.read()
        } catch {
            throw Self.storeError(error, "read a reply")
        }
    }

    /// A certificate or handshake refused is the configuration's (exit 78: retrying cannot
    /// help, and plaintext is never tried instead); a network or server failure is an
    /// outage (exit 75, HTTP 503), like any other.
    private static func storeError(_ error: TLSError, _ operation: String) -> StoreError {
        switch error.kind {
        case .configuration:
            StoreError(.invalidConfiguration, "Redis over TLS: \(operation): \(error.message) "
                + "(STORE_URL, STORE_TLS_CA_FILE, STORE_TLS_CERT_FILE, STORE_TLS_KEY_FILE)")
        case .unavailable:
            StoreError(.unavailable, "Redis over TLS: \(operation): \(error.message)")
        }
    }
}
