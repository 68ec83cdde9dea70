import FoundationEssentials
import OpenSSLCrypto

/// OCSP checks of App Store certificates (leaf against its intermediate, intermediate
/// against the root) under the hard / soft policy, with answers cached in the store.
///
/// - A good answer is kept until its nextUpdate (at most 24 hours), keyed by the
///   certificate, so processes that run once per request do not ask again.
/// - A revoked certificate is always VERIFICATION_FAILURE, and is remembered.
/// - An unreachable responder (or an answer that does not verify) is RETRYABLE under `hard`;
///   under `soft` a good answer under 24 hours old is used, otherwise the data is accepted
///   and reported unchecked. An unreachable responder is remembered for a minute so a burst
///   of requests does not each wait for the same timeout.
public final class RevocationChecker {
    /// How long a good answer may stand in for an unreachable responder (soft policy).
    public static let softFailGrace: Duration = .seconds(24 * 3600)
    /// How long "the responder is unreachable" is remembered.
    public static let unreachableMemory: Duration = .seconds(60)

    public let policy: OnlineCheckPolicy
    private let http: () throws -> any HTTPClient
    private let store: (any KeyValueStore)?
    private let timeout: Duration

    public init(policy: OnlineCheckPolicy, http: @escaping () throws -> any HTTPClient,
                store: (any KeyValueStore)?, timeout: Duration = .seconds(5)) {
        self.policy = policy
        self.http = http
        self.store = store
        self.timeout = timeout
    }

    /// Checks `chain` (leaf, intermediate, root, as verified). Returns the outcome and until
    /// when it may be relied on without asking again (nil: ask next time).
    func check(chain: [Certificate], trustStore: TrustStore, now: Date) throws(VerificationError) -> (RevocationOutcome, Date?) {
        guard policy != .off else { return (.notChecked, nil) }
        guard chain.count >= 3 else {
            throw VerificationError(.invalidCertificate, "a verified chain of \(chain.count) certificates cannot be checked online")
        }
        var outcome = RevocationOutcome.good
        var freshUntil: Date?
        for (certificate, issuer) in [(chain[0], chain[1]), (chain[1], chain[2])] {
            switch try status(of: certificate, issuer: issuer, trustStore: trustStore, now: now) {
            case .fresh(let until):
                freshUntil = min(freshUntil ?? until, until)
            case .cachedWhileUnreachable:
                if outcome == .good { outcome = .cachedWhileUnreachable }
                freshUntil = now
            case .unchecked(let reason):
                outcome = .unchecked(reason: reason)
                freshUntil = now
            }
        }
        return (outcome, freshUntil.flatMap { $0 > now ? $0 : nil })
    }

    private enum CertificateStatus {
        case fresh(until: Date)
        case cachedWhileUnreachable
        case unchecked(String)
    }

    private func status(of certificate: Certificate, issuer: Certificate, trustStore: TrustStore, now: Date) throws(VerificationError) -> CertificateStatus {
        let key = StoreKeys.revocationStatus(certificateFingerprint: certificate.sha256Fingerprint)
        let nowMilliseconds = now.millisecondsSince1970
        let cached = readCached(key)
        if let cached {
            if cached.status == .revoked {
                throw VerificationError(.verificationFailure, "certificate \(certificate.subjectSummary) is revoked")
            }
            if cached.freshUntil > nowMilliseconds {
                return .fresh(until: Date(millisecondsSince1970: cached.freshUntil))
            }
        }

        let failure: String
        if (try? store?.get(key + ":unreachable")) != nil {
            failure = "the OCSP responder was unreachable moments ago"
        } else {
            switch fetch(certificate, issuer: issuer, trustStore: trustStore, now: now) {
            case .success(let result):
                return try record(result, key: key, certificate: certificate, now: now)
            case .failure(let reason):
                failure = reason.description
                try? store?.set(key + ":unreachable", [1], expiresIn: Self.unreachableMemory)
            }
        }
        if policy == .hard {
            throw VerificationError(.retryableVerificationFailure, "online check of \(certificate.subjectSummary) failed: \(failure)")
        }
        if let cached, cached.status == .good, nowMilliseconds - cached.checkedAt < Self.softFailGrace.wholeMilliseconds {
            return .cachedWhileUnreachable
        }
        return .unchecked(failure)
    }

    private func record(_ result: OCSPResult, key: String, certificate: Certificate, now: Date) throws(VerificationError) -> CertificateStatus {
        let nowMilliseconds = now.millisecondsSince1970
        switch result.status {
        case .good:
            let cap = nowMilliseconds + Self.softFailGrace.wholeMilliseconds
            let until = min(result.nextUpdate.map(\.millisecondsSince1970) ?? cap, cap)
            write(CachedRevocationStatus(status: .good, checkedAt: nowMilliseconds, freshUntil: until), key: key, for: Self.softFailGrace)
            return .fresh(until: Date(millisecondsSince1970: until))
        case .revoked:
            write(CachedRevocationStatus(status: .revoked, checkedAt: nowMilliseconds, freshUntil: .max), key: key, for: .seconds(30 * 86_400))
            throw VerificationError(.verificationFailure, "certificate \(certificate.subjectSummary) is revoked")
        case .unknown:
            // The responder does not know the certificate: not proof of revocation, not proof
            // of good standing. Treated as a check that could not be made.
            if policy == .hard {
                throw VerificationError(.retryableVerificationFailure, "the OCSP responder does not know \(certificate.subjectSummary)")
            }
            return .unchecked("the OCSP responder does not know the certificate")
        }
    }

    /// One OCSP exchange; any failure (transport, HTTP status, a response that does not
    /// verify) is a reason string, since every such failure means "could not check".
    private func fetch(_ certificate: Certificate, issuer: Certificate, trustStore: TrustStore, now: Date) -> Result<OCSPResult, FetchFailure> {
        guard let url = certificate.ocspResponderURLs.first else {
            return .failure(FetchFailure("the certificate names no OCSP responder"))
        }
        do {
            let request = try OCSPRequest.make(for: certificate, issuer: issuer)
            let response = try http().send(HTTPRequest(
                method: "POST", url: url,
                headers: [("Content-Type", OCSPRequest.contentType), ("Accept", OCSPRequest.responseContentType)],
                body: request.der, connectTimeout: .seconds(2), timeout: timeout, maximumResponseBytes: 64 << 10))
            guard response.status == 200 else {
                return .failure(FetchFailure("the OCSP responder answered HTTP \(response.status)"))
            }
            return .success(try OCSPResponseVerifier.check(
                response: response.body, for: certificate, issuer: issuer, trustStore: trustStore,
                at: now, maximumAge: Self.softFailGrace, request: request))
        } catch {
            return .failure(FetchFailure(String(describing: error)))
        }
    }

    private struct FetchFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    private func readCached(_ key: String) -> CachedRevocationStatus? {
        guard let stored = try? store?.get(key) else { return nil }
        return try? JSONDecoder().decode(CachedRevocationStatus.self, from: Data(stored.bytes))
    }

    /// A cache write that fails is not an error: the answer was obtained, only not kept.
    private func write(_ status: CachedRevocationStatus, key: String, for lifetime: Duration) {
        guard let bytes = try? JSONEncoder().encode(status) else { return }
        try? store?.set(key, Array(bytes), expiresIn: lifetime)
    }
}
