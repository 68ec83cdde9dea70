import Foundation
import HTTPTransport
import OpenSSLCrypto
import StorekeeperCore
import TestSupport

/// Time for tests of retries: records every wait instead of sleeping, and moves a virtual
/// monotonic clock by the waits (plus the real time the attempts took), so backoff bounds are
/// checked exactly. The wall time is the system's, shifted by `wallOffset` (a token dated in
/// the past).
final class RecordedWaits: TimeSource, @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [Duration] = []
    private var slept: Duration = .zero
    private let system = SystemTime()
    private let start: Duration
    private let wallOffset: TimeInterval
    /// The backoff's jitter.
    let unit: Double

    init(unit: Double = 0.5, wallOffset: TimeInterval = 0) {
        self.unit = unit
        self.wallOffset = wallOffset
        start = system.monotonic()
    }

    var waits: [Duration] { lock.withLock { recorded } }
    func now() -> Date { system.now().addingTimeInterval(wallOffset) }
    func realNow() -> Date { system.realNow().addingTimeInterval(wallOffset) }
    func monotonic() -> Duration { lock.withLock { (system.monotonic() - start) + slept } }
    func sleep(for duration: Duration) { lock.withLock { recorded.append(duration); slept += duration } }
}

/// A client of the fake App Store, with the test API key unless told otherwise.
enum FakeAppStoreClient {
    static let key: ECPrivateKey = {
        // The committed test key: a missing fixture is a broken checkout, not outside data.
        guard let pem = try? String(contentsOfFile: FakeAppStore.apiKeyPath, encoding: .utf8),
              let key = try? ECPrivateKey(pem: pem) else { preconditionFailure("Tests/Fixtures/pki/appstore-api-key.p8 is missing") }
        return key
    }()

    static func credentials(keyId: String = FakeAppStore.keyId, issuerId: String = FakeAppStore.issuerId,
                            bundleId: String = FakeAppStore.bundleId, key: ECPrivateKey = key) -> AppStoreAPICredentials {
        AppStoreAPICredentials(keyId: keyId, issuerId: issuerId, bundleId: bundleId, privateKey: key)
    }

    static func make(_ fake: FakeAppStore, credentials: AppStoreAPICredentials = credentials(),
                     timing: RecordedWaits = RecordedWaits(),
                     policy: AppStoreAPIRetryPolicy = .default,
                     gate: any AppStoreAPIRequestGate = OpenRequestGate()) throws -> AppStoreServerAPIClient {
        AppStoreServerAPIClient(credentials: credentials, http: try CurlHTTPClient(), baseURLs: .overridden(fake.baseURL),
                                time: timing, retryPolicy: policy, randomUnit: { timing.unit }, gate: gate)
    }

    /// The test PKI's verifier, accepting both environments.
    static var verifier: SignedDataVerifier {
        let root = FakeAppStore.repositoryRoot.appendingPathComponent("Tests/Fixtures/pki/root.pem").path
        return SignedDataVerifier(configuration: .init(
            trustAnchors: TrustAnchors { try Certificate.load(path: root) },
            bundleId: FakeAppStore.bundleId, appAppleId: 1_234_567_890, acceptedEnvironments: ["Production", "Sandbox"]))
    }

    static func transaction(_ jws: String?) throws -> JWSTransactionDecodedPayload {
        try verifier.verify(jws ?? "", as: .transaction, now: Date()).decode(JWSTransactionDecodedPayload.self)
    }
}
