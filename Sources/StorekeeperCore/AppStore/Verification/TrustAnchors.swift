import OpenSSLCrypto

/// The roots App Store data must chain to, loaded on first use.
///
/// Loading and parsing roots costs a process about as much as verifying a JWS, and a
/// request that is rejected early, or whose chain is already known to be good, never needs
/// them; so they are read only when a chain is actually checked.
///
/// A chain proven against these roots is cached in the store under a key that includes the
/// roots' `identity`, so a chain proven under one set of roots is never taken as proven under
/// another (a root removed from the configuration stops being trusted at once).
public final class TrustAnchors {
    private let load: () throws -> [Certificate]
    private let identify: (() throws -> [UInt8])?
    private var loaded: TrustStore?
    private var certificates: [Certificate]?
    private var identityDigest: [UInt8]?

    /// Roots read by `load` when first needed (the function layer reads the files).
    /// `identity` names the configured roots without parsing them (the function layer hashes
    /// the files' bytes): it is needed for every cache lookup, the parsed roots only on a miss.
    /// Without it the identity is taken from the loaded roots.
    public init(identity: (() throws -> [UInt8])? = nil, load: @escaping () throws -> [Certificate]) {
        self.identify = identity
        self.load = load
    }

    /// Roots already in memory.
    public convenience init(_ certificates: [Certificate]) {
        self.init(identity: { certificates.flatMap(\.der) }, load: { certificates })
    }

    /// SHA-256 of what identifies the configured roots; computed once.
    func identity() throws(VerificationError) -> [UInt8] {
        if let identityDigest { return identityDigest }
        let bytes: [UInt8]
        do {
            if let identify {
                bytes = try identify()
            } else {
                bytes = try loadOnce().flatMap(\.der)
            }
        } catch {
            throw VerificationError(.retryableVerificationFailure, "trusted root certificates could not be read: \(error)")
        }
        let digest = Digest.sha256(bytes)
        identityDigest = digest
        return digest
    }

    private func loadOnce() throws -> [Certificate] {
        if let certificates { return certificates }
        let read = try load()
        certificates = read
        return read
    }

    /// The trust store. A failure to load the roots is not the data's fault, so it is
    /// RETRYABLE_VERIFICATION_FAILURE: Apple retries a notification answered that way,
    /// instead of the notification being refused for good while the server is misconfigured.
    func trustStore() throws(VerificationError) -> TrustStore {
        if let loaded { return loaded }
        do {
            let store = try TrustStore(roots: try loadOnce())
            loaded = store
            return store
        } catch {
            throw VerificationError(.retryableVerificationFailure, "trusted root certificates could not be loaded: \(error)")
        }
    }
}
