/// How a TLS client proves who it talks to and, optionally, who it is: the CA file that
/// must have signed the server's certificate (nil: the system's CAs) and a client
/// certificate with its key for mutual TLS (both or neither).
///
/// Paths, not contents: the files are read when a connection's context is built, so a key
/// never passes through a setting's value or a log line.
public struct TLSClientOptions: Sendable, Equatable {
    /// PEM file of trusted CA certificates; nil for the system's CAs.
    public var caFile: String?
    /// PEM file of the client certificate (and any intermediates after it).
    public var certificateFile: String?
    /// PEM file of the client certificate's private key.
    public var keyFile: String?

    public init(caFile: String? = nil, certificateFile: String? = nil, keyFile: String? = nil) {
        self.caFile = caFile
        self.certificateFile = certificateFile
        self.keyFile = keyFile
    }

    /// The system's CAs and no client certificate.
    public var isDefault: Bool { caFile == nil && certificateFile == nil && keyFile == nil }
}
