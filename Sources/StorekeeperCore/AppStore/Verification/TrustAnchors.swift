import OpenSSLCrypto

/// The roots App Store data must chain to, loaded on first use.
///
/// Loading and parsing roots costs a process about as much as verifying a JWS, and a
/// request that is rejected early, or whose chain is already known to be good, never needs
/// them; so they are read only when a chain is actually checked.
public final class TrustAnchors {
    private let load: () throws -> [Certificate]
    private var loaded: TrustStore?

    /// Roots read by `load` when first needed (the function layer reads the files).
    public init(load: @escaping () throws -> [Certificate]) {
        self.load = load
    }

    /// Roots already in memory.
    public convenience init(_ certificates: [Certificate]) {
        self.init(load: { certificates })
    }

    /// The trust store. A failure to load the roots is not the data's fault, so it is
    /// RETRYABLE_VERIFICATION_FAILURE: Apple retries a notification answered that way,
    /// instead of the notification being refused for good while the server is misconfigured.
    func trustStore() throws(VerificationError) -> TrustStore {
        if let loaded { return loaded }
        do {
            let store = try TrustStore(roots: try load())
            loaded = store
            return store
        } catch {
            throw VerificationError(.retryableVerificationFailure, "trusted root certificates could not be loaded: \(error)")
        }
    }
}
