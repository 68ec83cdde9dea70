import Foundation
import HTTPTransport
import OpenSSLCrypto
import StorekeeperCore
import TestSupport

/// Retry timing for tests: records every wait instead of sleeping, and moves a virtual clock
/// by the waits (plus the real time the attempts took), so backoff bounds are checked exactly.
final class RecordedWaits: AppStoreAPIRetryTiming, @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [Duration] = []
    private var slept: Duration = .zero
    private let start = ContinuousClock.now
    let unit: Double

    init(unit: Double = 0.5) { self.unit = unit }

    var waits: [Duration] { lock.withLock { recorded } }
    func now() -> Duration { lock.withLock { (ContinuousClock.now - start) + slept } }
    func sleep(for duration: Duration) { lock.withLock { recorded.append(duration); slept += duration } }
    func randomUnit() -> Double { unit }
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
                     clock: any StorekeeperCore.Clock = SystemClock(), timing: RecordedWaits = RecordedWaits(),
                     policy: AppStoreAPIRetryPolicy = .default,
                     gate: any AppStoreAPIRequestGate = OpenRequestGate()) throws -> AppStoreServerAPIClient {
        AppStoreServerAPIClient(credentials: credentials, http: try CurlHTTPClient(), baseURLs: .overridden(fake.baseURL),
                                clock: clock, retryPolicy: policy, timing: timing, gate: gate)
    }

    /// The test PKI's verifier, accepting both environments.
    static var verifier: SignedDataVerifier {
        let root = FakeAppStore.repositoryRoot.appendingPathComponent("Tests/Fixtures/pki/root.pem").path
        return SignedDataVerifier(configuration: .init(
            trustAnchors: TrustAnchors { try Certificate.load(path: root) },
            bundleId: FakeAppStore.bundleId, appAppleId: 1_234_567_890, acceptedEnvironments: [.production, .sandbox]))
    }

    static func transaction(_ jws: String?) throws -> JWSTransactionDecodedPayload {
        try verifier.verify(jws ?? "", as: .transaction, now: Date()).decode(JWSTransactionDecodedPayload.self)
    }
}
