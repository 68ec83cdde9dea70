import Foundation
import HTTPTransport
import OpenSSLCrypto
import SQLiteStore
import StorekeeperCore
import Testing

/// The responders the test PKI's certificates name in their AIA: the intermediate's at
/// 127.0.0.1:18888 (answers for leaves) and the root's at 127.0.0.1:18889 (answers for the
/// intermediate). Real `openssl ocsp` processes; SIGKILL only (children of a test process
/// inherit a signal mask that blocks SIGTERM).
final class FixedPortOCSPResponders {
    private var processes: [Process] = []
    /// Held while the responders run: the ports are fixed, so two test runs on one machine
    /// (a developer's and a helper's, say) take turns instead of failing.
    private let lock: Int32

    init(leafSigner: String = "ocsp-responder") throws {
        lock = open("/tmp/storekeeper-ocsp-ports.lock", O_CREAT | O_RDWR, 0o644)
        _ = flock(lock, LOCK_EX)
        let pki = FunctionBinary.repositoryRoot.appendingPathComponent("Tests/Fixtures/pki")
        for (port, index, ca, signer) in [(18888, "index.txt", "intermediate", leafSigner),
                                          (18889, "root-index.txt", "root", "root-ocsp-responder")] {
            let log = FileManager.default.temporaryDirectory.appendingPathComponent("ocsp-\(port)-\(UUID().uuidString).log")
            FileManager.default.createFile(atPath: log.path, contents: nil)
            let output = try FileHandle(forWritingTo: log)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
            process.arguments = ["--signal=KILL", "120", "openssl", "ocsp", "-port", "\(port)", "-index", index,
                                 "-CA", "\(ca).pem", "-rsigner", "\(signer).pem", "-rkey", "\(signer).key", "-ndays", "1"]
            process.currentDirectoryURL = pki
            process.standardOutput = output
            process.standardError = output
            try process.run()
            try? output.close()
            processes.append(process)
            // Not a test connection: openssl's responder serves one connection at a time and
            // would sit on a probe. It says when it listens.
            let deadline = Date().addingTimeInterval(10)
            while !((try? String(contentsOf: log, encoding: .utf8)) ?? "").contains("waiting for OCSP client connections") {
                guard Date() < deadline, process.isRunning else {
                    stop()
                    throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "openssl ocsp did not start on \(port)"])
                }
                Thread.sleep(forTimeInterval: 0.02)
            }
        }
    }

    func stop() {
        for process in processes where process.isRunning {
            // openssl first (the child of `timeout`), then `timeout` itself: killing only the
            // parent would leave the responder holding the port.
            let pid = process.processIdentifier
            let children = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
            for child in children.split(separator: " ").compactMap({ Int32($0) }) { kill(child, SIGKILL) }
            kill(-pid, SIGKILL)
            kill(pid, SIGKILL)
            process.waitUntilExit()
        }
        processes.removeAll()
    }

    deinit {
        stop()
        flock(lock, LOCK_UN)
        close(lock)
    }
}

/// OCSP online checks for App Store data through the real pieces: openssl's responder,
/// libcurl, the SQLite store. Serialized: the responders' ports are fixed by the fixtures.
@Suite("Online checks (OCSP): good, revoked, unreachable, wrong key, cached", .serialized)
struct OnlineChecksTests {
    static let pki = FunctionBinary.repositoryRoot.appendingPathComponent("Tests/Fixtures/pki")

    static func certificate(_ stem: String) throws -> Certificate {
        try #require(try Certificate.load(path: pki.appendingPathComponent("\(stem).pem").path).first)
    }

    /// A transaction signed by `leaf`, at `now`.
    static func signedTransaction(leaf: String = "leaf") throws -> String {
        let key = try ECPrivateKey(pem: String(contentsOf: pki.appendingPathComponent("\(leaf).key"), encoding: .utf8))
        let x5c = try [leaf, "intermediate", "root"].map { Data(try certificate($0).der).base64EncodedString() }
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let payload: [String: Any] = [
            "transactionId": "1", "originalTransactionId": "1", "bundleId": "com.example.storekeeper",
            "productId": "pro", "type": "Auto-Renewable Subscription", "environment": "Sandbox",
            "purchaseDate": now, "expiresDate": now + 86_400_000, "signedDate": now,
        ]
        let json = try JSONSerialization.data(withJSONObject: payload)
        return try JWSSigner(key: key, header: JOSEHeader(alg: "ES256", x5c: x5c)).sign(payload: Array(json))
    }

    /// A verifier as one process would build it, sharing `storePath` with the others.
    static func verifier(_ policy: OnlineCheckPolicy, storePath: String) throws -> SignedDataVerifier {
        let store = try SQLiteStore(path: storePath)
        let http = try CurlHTTPClient()
        return SignedDataVerifier(
            configuration: .init(trustAnchors: TrustAnchors([try certificate("root")]), bundleId: "com.example.storekeeper",
                                 appAppleId: nil, acceptedEnvironments: ["Sandbox"]),
            chainStore: store,
            revocation: RevocationChecker(policy: policy, http: { http }, store: store, timeout: .seconds(3)))
    }

    static func temporaryStore() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("online-\(UUID().uuidString).db").path
    }

    @Test func aGoodChainIsCheckedOnceAndThenServedFromTheStore() throws {
        let storePath = Self.temporaryStore()
        let responders = try FixedPortOCSPResponders()
        let first = try Self.verifier(.hard, storePath: storePath).verify(Self.signedTransaction(), now: Date())
        #expect(first.revocation == .good)
        responders.stop()
        // Another process, the responders gone: the store remembers the good answers.
        let second = try Self.verifier(.hard, storePath: storePath).verify(Self.signedTransaction(), now: Date())
        #expect(second.revocation == .good)
    }

    @Test func aRevokedLeafIsAlwaysVerificationFailure() throws {
        let storePath = Self.temporaryStore()
        let responders = try FixedPortOCSPResponders()
        defer { responders.stop() }
        for policy in [OnlineCheckPolicy.soft, .hard] {
            #expect(throws: VerificationError(.verificationFailure, "")) {
                try Self.verifier(policy, storePath: storePath).verify(Self.signedTransaction(leaf: "leaf-revoked"), now: Date())
            }
        }
        // Offline checks cannot know: the chain itself is valid.
        let offline = try Self.verifier(.off, storePath: Self.temporaryStore()).verify(Self.signedTransaction(leaf: "leaf-revoked"), now: Date())
        #expect(offline.revocation == .notChecked)
    }

    @Test func anUnreachableResponderIsRetryableUnderHardAndUncheckedUnderSoft() throws {
        #expect(throws: VerificationError(.retryableVerificationFailure, "")) {
            try Self.verifier(.hard, storePath: Self.temporaryStore()).verify(Self.signedTransaction(), now: Date())
        }
        let soft = try Self.verifier(.soft, storePath: Self.temporaryStore()).verify(Self.signedTransaction(), now: Date())
        guard case .unchecked = soft.revocation else {
            Issue.record("expected unchecked, got \(soft.revocation)")
            return
        }
    }

    @Test func softUsesARecentGoodAnswerWhenTheResponderGoesAway() throws {
        let storePath = Self.temporaryStore()
        let responders = try FixedPortOCSPResponders()
        _ = try Self.verifier(.soft, storePath: storePath).verify(Self.signedTransaction(), now: Date())
        responders.stop()
        // Past the answers' nextUpdate (one day), but within the 24-hour soft grace of the check.
        let later = Date().addingTimeInterval(23 * 3600)
        let outcome = try Self.verifier(.soft, storePath: storePath).verify(Self.signedTransaction(), now: later).revocation
        #expect(outcome == .good || outcome == .cachedWhileUnreachable)
        let muchLater = Date().addingTimeInterval(30 * 3600)
        let stale = try Self.verifier(.soft, storePath: storePath).verify(Self.signedTransaction(), now: muchLater).revocation
        guard case .unchecked = stale else {
            Issue.record("expected unchecked after the grace, got \(stale)")
            return
        }
    }

    @Test func anAnswerSignedByTheWrongKeyIsNotTrusted() throws {
        let responders = try FixedPortOCSPResponders(leafSigner: "ocsp-responder-other-root")
        defer { responders.stop() }
        #expect(throws: VerificationError(.retryableVerificationFailure, "")) {
            try Self.verifier(.hard, storePath: Self.temporaryStore()).verify(Self.signedTransaction(), now: Date())
        }
        let soft = try Self.verifier(.soft, storePath: Self.temporaryStore()).verify(Self.signedTransaction(), now: Date())
        #expect(soft.revocation != .good)
    }
}
