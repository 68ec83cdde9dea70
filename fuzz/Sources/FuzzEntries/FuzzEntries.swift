import FoundationEssentials
import FunctionRuntime
import OpenSSLCrypto
import StorekeeperComposition
import StorekeeperCore
import StorekeeperFunctions
import StorekeeperTesting

// The fuzz targets' entry logic, in one file that two builds compile: the libFuzzer
// executables in fuzz/ (module FuzzEntries) and `swift test` (Tests/FunctionTests links this
// file), which replays every committed corpus and regression input through it in process.
// So a crash the fuzzer found stays fixed once its input is in fuzz/regressions/<target>/.

/// An invariant an input broke without crashing: the fuzzer traps on it (so libFuzzer keeps
/// the input), the replay test records it.
public struct FuzzFinding: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// The harness could not set itself up (fixtures missing): not the input's fault.
public struct FuzzSetupError: Error, CustomStringConvertible {
    public let description: String
}

/// One libFuzzer target. The raw value names its executable (`fuzz-<name>`) and its folders
/// `fuzz/corpus/<name>/` and `fuzz/regressions/<name>/`.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// Input: compact JWS text. `CompactJWS(parsing:)`, then `SignedDataVerifier.verify`
    /// against the test PKI's root, twice on one verifier (the second answer comes through
    /// the verified-chain cache and must match the first), then with a type forced.
    case jwsVerify = "jws-verify"
    /// Input: stdin of a function process (direct JSON, NDJSON, HTTP events with plain or
    /// base64 bodies, query strings, form bodies), run through two small handlers.
    case frontDoors = "front-doors"
    /// Input: a few CGI variables, one a line, then the body (see `FuzzCGIInput`).
    case cgi
    /// Input: stdin of `verify-signed-data`, configured with the test PKI.
    case verifySignedData = "verify-signed-data"
    /// Input: a legacy app receipt (DER PKCS#7), read and verified with the test receipt PKI,
    /// and the same bytes read as a bare receipt payload (see `FuzzReceiptReader`).
    case receiptReader = "receipt-reader"
    /// Input: a Sign in with Apple identity token (or, starting with `{`, claims the harness
    /// signs with the test Apple ID key), verified as a token and as an account notification
    /// (see `FuzzIdentityToken`).
    case identityToken = "identity-token"
    /// Input: a DER OCSP response, checked for the test PKI's leaves and intermediate at
    /// 2026-06-01 (see `FuzzOCSPResponse`).
    case ocspResponse = "ocsp-response"
    /// Input: a catalog file (`STOREKEEPER_CATALOG`), read by `Catalog.parse` (see `FuzzCatalog`).
    case catalog

    /// Runs one input; returns a one-line summary of what happened (the replay test checks
    /// the valid seeds with it). Whatever the input, it must not crash, hang or leak; a thrown
    /// `FuzzFinding` is a broken invariant, a `FuzzSetupError` a missing fixture.
    public func run(_ input: [UInt8]) throws -> String {
        switch self {
        case .jwsVerify: try FuzzJWSVerify.run(input)
        case .frontDoors: try FuzzFrontDoors.run(input)
        case .cgi: try FuzzFrontDoors.runCGI(input)
        case .verifySignedData: try FuzzVerifySignedData.run(input)
        case .receiptReader: try FuzzReceiptReader.run(input)
        case .identityToken: try FuzzIdentityToken.run(input)
        case .ocspResponse: try FuzzOCSPResponse.run(input)
        case .catalog: try FuzzCatalog.run(input)
        }
    }

    /// The body of `LLVMFuzzerTestOneInput`: a finding or a setup error stops the fuzzer with
    /// a message, and libFuzzer writes the input out as a crash reproducer.
    public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
        let input = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
        do {
            _ = try run(input)
        } catch {
            fatalError("fuzz-\(rawValue): \(error)")
        }
        return 0
    }
}

/// The test PKI and the settings every target shares.
enum FuzzFixtures {
    /// 2026-06-01T00:00:00Z, the test PKI's fixed validation time (Tests/Fixtures/pki/README.md).
    static let now = Date(timeIntervalSince1970: 1_780_272_000)
    static let clock = SystemTime(pinnedAt: now)
    static let bundleId = "com.example.storekeeper"
    static let appAppleId: Int64 = 1_234_567_890
    static let adminToken = "fuzz-admin-token"

    /// Tests/Fixtures/pki, found upwards from this file (it is compiled from fuzz/Sources/
    /// FuzzEntries and, through a link, from Tests/FunctionTests).
    static let pkiDirectory: Result<String, FuzzSetupError> = {
        var components = #filePath.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        while components.count > 1 {
            components.removeLast()
            let candidate = components.joined(separator: "/") + "/Tests/Fixtures/pki"
            if FileManager.default.fileExists(atPath: candidate + "/root.pem") { return .success(candidate) }
        }
        return .failure(FuzzSetupError(description: "Tests/Fixtures/pki/root.pem not found above \(#filePath)"))
    }()

    static let root: Result<Certificate, FuzzSetupError> = pkiDirectory.flatMap { directory in
        do {
            guard let certificate = try Certificate.load(path: directory + "/root.pem").first else {
                return .failure(FuzzSetupError(description: "root.pem holds no certificate"))
            }
            return .success(certificate)
        } catch {
            return .failure(FuzzSetupError(description: "root.pem: \(error)"))
        }
    }

    static func verifierConfiguration() throws -> SignedDataVerifier.Configuration {
        SignedDataVerifier.Configuration(
            trustAnchors: TrustAnchors([try root.get()]),
            bundleId: bundleId,
            appAppleId: appAppleId,
            acceptedEnvironments: [.sandbox, .production]
        )
    }
}

// MARK: - jws-verify

enum FuzzJWSVerify {
    static func run(_ input: [UInt8]) throws -> String {
        let text = String(decoding: input, as: UTF8.self)
        let parses = (try? CompactJWS(parsing: text)) != nil
        _ = try? CompactJWS(parsing: text[...])

        // A verifier per input, so a crash never depends on what earlier inputs cached.
        let verifier = SignedDataVerifier(configuration: try FuzzFixtures.verifierConfiguration())
        let first = outcome(verifier, text, as: nil)
        let second = outcome(verifier, text, as: nil)
        guard first == second else {
            throw FuzzFinding("the same JWS verified twice gave \"\(first)\" then \"\(second)\" (verified-chain cache)")
        }
        if !parses, first.hasPrefix("accepted") {
            throw FuzzFinding("a JWS that CompactJWS rejects was accepted: \(first)")
        }
        // A forced type reads the claims another way; chosen by the input so a run is repeatable.
        let forced = SignedDataType.allCases[input.count % SignedDataType.allCases.count]
        _ = outcome(verifier, text, as: forced)
        return first
    }

    private static func outcome(_ verifier: SignedDataVerifier, _ text: String, as type: SignedDataType?) -> String {
        do {
            let verified = try verifier.verify(text, as: type, now: FuzzFixtures.now)
            return "accepted \(verified.type.rawValue) \(verified.environment)"
        } catch {
            return "rejected \(error.code)"
        }
    }
}

// MARK: - front-doors and cgi

/// A public POST function: a JSON body, a form body, or both over any door.
final class FuzzPostHandler: FunctionHandler {
    static let descriptor = FunctionDescriptor(
        name: "fuzz-post", route: "/fuzz", method: "POST", visibility: .public,
        summary: "Echoes a request (fuzzing).",
        request: #"{"name": string, "count": integer?, "tags": [string]?, "note": string?}"#,
        response: #"{"name": string, ...}"#
    )

    struct Request: RequestBody {
        enum CodingKeys: String, CodingKey, CaseIterable {
            case name, count, tags, note
        }
        let name: String
        let count: Int?
        let tags: [String]?
        let note: String?
    }

    struct Response: Encodable {
        let name: String
        let count: Int
        let tags: [String]
        let note: String
        let door: String
        let path: String
        let query: [String: String]
        let headerCount: Int
    }

    init(context: FunctionContext) throws {}

    func handle(_ request: FunctionRequest) throws -> FunctionResponse {
        let body = try request.decode(Request.self)
        return try .json(Response(
            name: body.name, count: body.count ?? 0, tags: body.tags ?? [], note: body.note ?? "",
            door: request.frontDoor.rawValue, path: request.path, query: request.query, headerCount: request.headers.count
        ))
    }
}

/// An internal GET function: over HTTP it wants the bearer token, and its request comes
/// from the query string.
final class FuzzGetHandler: FunctionHandler {
    static let descriptor = FunctionDescriptor(
        name: "fuzz-get", route: "/lookup", method: "GET", visibility: .internal,
        summary: "Looks something up (fuzzing).",
        request: #"{"userId": string, "note": string?}"#,
        response: #"{"userId": string, "note": string}"#
    )

    struct Request: RequestBody {
        enum CodingKeys: String, CodingKey, CaseIterable {
            case userId, note
        }
        let userId: String
        let note: String?
    }

    init(context: FunctionContext) throws {}

    func handle(_ request: FunctionRequest) throws -> FunctionResponse {
        let body = try request.decode(Request.self)
        return try .json(["userId": body.userId, "note": body.note ?? ""])
    }
}

/// The CGI target's input: up to six lines, then the body.
///
///     REQUEST_METHOD \n PATH_INFO \n QUERY_STRING \n CONTENT_TYPE \n HTTP_AUTHORIZATION \n
///     CONTENT_LENGTH \n body...
///
/// A line the input stops before is an unset variable. An empty CONTENT_LENGTH line means
/// "the body's length", so mutations of the body keep reaching the body decoders.
struct FuzzCGIInput {
    static let variableNames = ["REQUEST_METHOD", "PATH_INFO", "QUERY_STRING", "CONTENT_TYPE", "HTTP_AUTHORIZATION", "CONTENT_LENGTH"]

    var environment: [String: String]
    var body: [UInt8]

    init(_ input: [UInt8]) {
        environment = ["GATEWAY_INTERFACE": "CGI/1.1", "SCRIPT_NAME": "", "SERVER_PROTOCOL": "HTTP/1.1",
                       RuntimeVariable.adminToken: FuzzFixtures.adminToken]
        var rest = input[...]
        for name in Self.variableNames {
            guard let newline = rest.firstIndex(of: UInt8(ascii: "\n")) else {
                rest = rest[rest.endIndex...]
                break
            }
            environment[name] = String(decoding: rest[..<newline], as: UTF8.self)
            rest = rest[(newline + 1)...]
        }
        body = Array(rest)
        if environment["CONTENT_LENGTH"] == "" { environment["CONTENT_LENGTH"] = String(body.count) }
    }
}

enum FuzzFrontDoors {
    static let environment = [RuntimeVariable.adminToken: FuzzFixtures.adminToken]

    static func run(_ input: [UInt8]) throws -> String {
        let post = FunctionRunner.run(FuzzPostHandler.self, environment: environment, stdin: input, clock: FuzzFixtures.clock)
        try FuzzChecks.streamAnswer(post, exitCodes: [0, 65])
        let get = FunctionRunner.run(FuzzGetHandler.self, environment: environment, stdin: input, clock: FuzzFixtures.clock)
        try FuzzChecks.streamAnswer(get, exitCodes: [0, 65])
        return "post exit \(post.exitCode), get exit \(get.exitCode)"
    }

    static func runCGI(_ input: [UInt8]) throws -> String {
        let request = FuzzCGIInput(input)
        let post = FunctionRunner.run(FuzzPostHandler.self, environment: request.environment, stdin: request.body, clock: FuzzFixtures.clock)
        try FuzzChecks.cgiAnswer(post, exitCodes: [0, 65])
        let get = FunctionRunner.run(FuzzGetHandler.self, environment: request.environment, stdin: request.body, clock: FuzzFixtures.clock)
        try FuzzChecks.cgiAnswer(get, exitCodes: [0, 65])
        return "post exit \(post.exitCode), get exit \(get.exitCode)"
    }
}

// MARK: - verify-signed-data

enum FuzzVerifySignedData {
    static func environment() throws -> [String: String] {
        [
            "APPSTORE_ROOT_CERTS": try FuzzFixtures.pkiDirectory.get() + "/root.pem",
            "APPSTORE_BUNDLE_ID": FuzzFixtures.bundleId,
            "APPSTORE_APP_APPLE_ID": String(FuzzFixtures.appAppleId),
            "APPSTORE_ENVIRONMENT": "Sandbox,Production",
            // Offline: validated at the payload's signedDate, as the seeds expect; an OCSP
            // request per input would make runs slow and depend on what listens on loopback.
            "APPSTORE_ONLINE_CHECKS": "off",
            // A fresh store per input (the handler is built per run), so proven chains never
            // carry over from one input to the next and nothing is written to disk.
            "STORE_URL": "sqlite::memory:",
            RuntimeVariable.adminToken: FuzzFixtures.adminToken,
        ]
    }

    static func run(_ input: [UInt8]) throws -> String {
        let result = FunctionRunner.run(VerifySignedDataFunction.self, environment: try environment(), stdin: input,
                                       clock: FuzzFixtures.clock, adapters: Adapters.init(environment:))
        // 75 is RETRYABLE_VERIFICATION_FAILURE; 78 (a configuration error) would be the harness's fault.
        if result.exitCode == 78 {
            throw FuzzSetupError(description: "verify-signed-data did not start: \(String(decoding: result.stdout, as: UTF8.self))")
        }
        try FuzzChecks.streamAnswer(result, exitCodes: [0, 65, 75])
        return "exit \(result.exitCode)"
    }
}

// MARK: - receipt-reader

enum FuzzReceiptReader {
    /// The legacy receipt PKI's root (Tests/Fixtures/receipts, next to Tests/Fixtures/pki).
    static let root: Result<Certificate, FuzzSetupError> = FuzzFixtures.pkiDirectory.flatMap { directory in
        let path = directory + "/../receipts/pki/receipt-root.pem"
        do {
            guard let certificate = try Certificate.load(path: path).first else {
                return .failure(FuzzSetupError(description: "\(path) holds no certificate"))
            }
            return .success(certificate)
        } catch {
            return .failure(FuzzSetupError(description: "\(path): \(error)"))
        }
    }

    /// The input as a whole receipt (PKCS#7 container, payload, signature, chain at the
    /// creation date, bundle id, environment), twice, then as a bare payload. A receipt that
    /// verifies must be this app's, from an accepted environment; the container's content
    /// must read the same way on its own; both readings of the same bytes must agree.
    static func run(_ input: [UInt8]) throws -> String {
        let verifier = ReceiptVerifier(configuration: .init(
            trustAnchors: TrustAnchors([try root.get()]), bundleId: FuzzFixtures.bundleId,
            acceptedEnvironments: [.production, .sandbox]))
        let first = outcome(verifier, input)
        let second = outcome(verifier, input)
        guard first == second else { throw FuzzFinding("the same receipt read twice gave \"\(first)\" then \"\(second)\"") }
        if case .success(let reading) = Result(catching: { try verifier.read(der: input) }) {
            if case .success(let verification) = reading.verification {
                guard reading.receipt.bundleId == FuzzFixtures.bundleId, [Environment.production, .sandbox].contains(verification.environment) else {
                    throw FuzzFinding("verified a receipt of \(reading.receipt.bundleId) in \(verification.environment.rawValue)")
                }
            }
            let content = try PKCS7SignedData(der: input).content
            guard (try? AppReceipt(payload: content)) == reading.receipt else {
                throw FuzzFinding("the container's content read alone differs from the receipt read through the container")
            }
        }
        // The same bytes as a payload: reaches the DER reader with every mutation.
        let payload = (try? AppReceipt(payload: input)).map { "payload with \($0.inAppPurchases.count) purchases" } ?? "not a payload"
        return "\(first); \(payload)"
    }

    private static func outcome(_ verifier: ReceiptVerifier, _ input: [UInt8]) -> String {
        do {
            let reading = try verifier.read(der: input)
            switch reading.verification {
            case .success(let verification): return "verified \(verification.environment.rawValue) \(reading.receipt.inAppPurchases.count)"
            case .failure(let error): return "read, refused \(error.code)"
            }
        } catch {
            return "unreadable \(error.code)"
        }
    }
}

// MARK: - identity-token

enum FuzzIdentityToken {
    /// The fixed key id the seeds' tokens carry (Tests/Fixtures/pki/appleid-rsa.*).
    static let kid = "test-key-1"
    static let clientIds = ["com.example.web", FuzzFixtures.bundleId]
    static let nonce = "n-123"
    static let leeway: Int64 = 60
    static var nowSeconds: Int64 { Int64(FuzzFixtures.now.timeIntervalSince1970) }

    struct Keys: Sendable {
        /// Signs the inputs that are claims (start with `{`), so they reach the claim checks.
        let signing: RSAPrivateKey
        /// Only the public key from appleid-rsa.pub.pem, under `kid`.
        let published: JWKSet
    }

    static let keys: Result<Keys, FuzzSetupError> = FuzzFixtures.pkiDirectory.flatMap { directory in
        func text(_ name: String) throws -> String {
            guard let data = FileManager.default.contents(atPath: directory + "/" + name) else {
                throw FuzzSetupError(description: "cannot read \(directory)/\(name)")
            }
            return String(decoding: data, as: UTF8.self)
        }
        do {
            let signing = try RSAPrivateKey(pem: try text("appleid-rsa.key"))
            let publicKey = try RSAPublicKey(pem: try text("appleid-rsa.pub.pem"))
            guard publicKey == signing.publicKey else {
                return .failure(FuzzSetupError(description: "appleid-rsa.key and appleid-rsa.pub.pem do not match"))
            }
            let jwk = JWK(kty: "RSA", kid: kid, use: "sig", alg: "RS256",
                          n: Base64URL.encode(publicKey.modulus), e: Base64URL.encode(publicKey.exponent))
            return .success(Keys(signing: signing, published: JWKSet(keys: [jwk])))
        } catch {
            return .failure(FuzzSetupError(description: "the Apple ID test key: \(error)"))
        }
    }

    /// A compact token (anything not starting with `{`) as it is; claims (starting with `{`)
    /// signed RS256 under `kid` first, so every mutation of them gets past the signature to
    /// the claim decoding, the checks and the `events` claim. Each is verified as an identity
    /// token without and with an expected nonce, and as an account notification, each twice.
    static func run(_ input: [UInt8]) throws -> String {
        let keys = try self.keys.get()
        let verifier = IdentityTokenVerifier(configuration: .init(clientIds: clientIds, leeway: .seconds(leeway)), keys: StaticKeyProvider(keys.published))
        let token: String
        var signedClaims: [UInt8]?
        if input.first == UInt8(ascii: "{") {
            let signingInput = Base64URL.encode(Array(#"{"alg":"RS256","kid":"test-key-1"}"#.utf8)) + "." + Base64URL.encode(input)
            token = signingInput + "." + Base64URL.encode(try keys.signing.signRS256(Array(signingInput.utf8)))
            signedClaims = input
        } else {
            token = String(decoding: input, as: UTF8.self)
        }
        var answers: [String] = []
        for expectedNonce in [nil, nonce] {
            let first = try identityToken(verifier, token, expectedNonce: expectedNonce, signedClaims: signedClaims)
            let second = try identityToken(verifier, token, expectedNonce: expectedNonce, signedClaims: signedClaims)
            guard first == second else { throw FuzzFinding("the same token verified twice gave \"\(first)\" then \"\(second)\"") }
            answers.append(first)
        }
        // The nonce is the last check: a token that passes with it passes without it.
        if answers[1] == "accepted", answers[0] != "accepted" {
            throw FuzzFinding("accepted with the expected nonce but \(answers[0]) without one")
        }
        let first = try notification(verifier, token)
        let second = try notification(verifier, token)
        guard first == second else { throw FuzzFinding("the same notification verified twice gave \"\(first)\" then \"\(second)\"") }
        return "token \(answers[0]), with nonce \(answers[1]); notification \(first)"
    }

    private static func identityToken(_ verifier: IdentityTokenVerifier, _ token: String, expectedNonce: String?, signedClaims: [UInt8]?) throws -> String {
        let verified: VerifiedIdentityToken
        do {
            verified = try verifier.verify(token, expectedNonce: expectedNonce, now: FuzzFixtures.now)
        } catch {
            return "rejected \(error.code)"
        }
        let claims = verified.claims
        try checkCommon(iss: claims.iss, aud: claims.aud, exp: claims.exp, iat: claims.iat, "an identity token")
        if let expectedNonce, claims.nonce != expectedNonce {
            throw FuzzFinding("accepted a token with nonce \(claims.nonce.map { "\($0.prefix(40))" } ?? "none") when \(expectedNonce) was expected")
        }
        if let signedClaims, verified.payload != signedClaims {
            throw FuzzFinding("the verified payload is not the bytes that were signed")
        }
        return "accepted"
    }

    private static func notification(_ verifier: IdentityTokenVerifier, _ token: String) throws -> String {
        let notification: AppleIDNotification
        do {
            notification = try verifier.verifyNotification(token, now: FuzzFixtures.now)
        } catch {
            return "rejected \(error.code)"
        }
        try checkCommon(iss: notification.iss, aud: notification.aud, exp: notification.exp, iat: notification.iat, "a notification")
        return "accepted \(notification.event.typeValue?.rawValue ?? "unknown type")"
    }

    /// What every accepted token or notification must carry, checked without the verifier.
    private static func checkCommon(iss: String, aud: [String], exp: Int64?, iat: Int64, _ what: String) throws {
        guard iss == IdentityTokenVerifier.Configuration.appleIssuer else {
            throw FuzzFinding("accepted \(what) from issuer \(iss.prefix(80))")
        }
        guard aud.contains(where: clientIds.contains) else {
            throw FuzzFinding("accepted \(what) for audience \(aud.joined(separator: ",").prefix(80))")
        }
        if let exp, exp <= nowSeconds - leeway {
            throw FuzzFinding("accepted \(what) that expired at \(exp) (now \(nowSeconds), leeway \(leeway))")
        }
        guard iat <= nowSeconds + leeway else {
            throw FuzzFinding("accepted \(what) issued at \(iat), after now (\(nowSeconds)) plus the leeway")
        }
    }
}

// MARK: - ocsp-response

enum FuzzOCSPResponse {
    /// One certificate the harness asks about, and the serial an answer about it must name.
    struct Question: Sendable {
        let name: String
        let certificate: Certificate
        let issuer: Certificate
        let serial: [UInt8]
        let request: OCSPRequest?
    }

    struct Setup: Sendable {
        let trustStore: TrustStore
        /// Answerable under the test root: a leaf (good in the responder's database), the
        /// revoked leaf, the intermediate (the root's responder), the leaf with a nonce request.
        let questions: [Question]
        /// leaf-other-root from other-intermediate: outside the trust store, never answered.
        let foreign: Question
    }

    static let setup: Result<Setup, FuzzSetupError> = FuzzFixtures.pkiDirectory.flatMap { directory in
        do {
            func certificate(_ name: String) throws -> Certificate {
                guard let first = try Certificate.load(path: "\(directory)/\(name).pem").first else {
                    throw FuzzSetupError(description: "\(name).pem holds no certificate")
                }
                return first
            }
            func question(_ name: String, _ issuer: String, nonce: Bool = false) throws -> Question {
                let asked = try certificate(name), issuing = try certificate(issuer)
                return Question(name: nonce ? "\(name)+nonce" : name, certificate: asked, issuer: issuing,
                                serial: try integerContent(hex: asked.serialNumberHex),
                                request: nonce ? try OCSPRequest.make(for: asked, issuer: issuing, nonce: true) : nil)
            }
            return .success(Setup(
                trustStore: try TrustStore(roots: [try certificate("root")]),
                questions: [try question("leaf", "intermediate"), try question("leaf-revoked", "intermediate"),
                            try question("intermediate", "root"), try question("leaf", "intermediate", nonce: true)],
                foreign: try question("leaf-other-root", "other-intermediate")))
        } catch {
            return .failure(FuzzSetupError(description: "the test PKI's OCSP fixtures: \(error)"))
        }
    }

    /// The input checked about each question at 2026-06-01 with RevocationChecker's maximum
    /// age, twice (both answers, messages included, must agree: OpenSSL's error queue must
    /// not carry one check's errors into the next). An answer, whatever its status, must come
    /// from a response that holds the asked certificate's serial as an INTEGER; nothing may
    /// be answered for a certificate whose issuer is outside the trust store.
    static func run(_ input: [UInt8]) throws -> String {
        let setup = try setup.get()
        var answers: [String] = []
        for question in setup.questions + [setup.foreign] {
            let first = try answer(question, input, setup.trustStore)
            let second = try answer(question, input, setup.trustStore)
            guard first == second else {
                throw FuzzFinding("the same response checked twice about \(question.name) gave \"\(first)\" then \"\(second)\"")
            }
            if question.name == setup.foreign.name, first.hasPrefix("answered") {
                throw FuzzFinding("answered about \(question.name), whose issuer does not chain to the trust store: \(first)")
            }
            answers.append("\(question.name) \(first.prefix { $0 != ":" })")
        }
        return answers.joined(separator: "; ")
    }

    private static func answer(_ question: Question, _ input: [UInt8], _ trustStore: TrustStore) throws -> String {
        let result: OCSPResult
        do {
            result = try OCSPResponseVerifier.check(
                response: input, for: question.certificate, issuer: question.issuer, trustStore: trustStore,
                at: FuzzFixtures.now, maximumAge: RevocationChecker.softFailGrace, request: question.request)
        } catch {
            return "refused \(error.kind): \(error.message)"
        }
        guard containsInteger(question.serial, in: input) else {
            throw FuzzFinding("answered \(result.status) about \(question.name) from a response without its serial \(question.certificate.serialNumberHex)")
        }
        return "answered \(result.status)"
    }

    /// The content octets of a non-negative INTEGER, from upper-case hex (minimal, with a
    /// leading zero when the top bit is set).
    static func integerContent(hex: String) throws -> [UInt8] {
        let digits = Array(hex.utf8)
        guard !digits.isEmpty, digits.count.isMultiple(of: 2) else { throw FuzzSetupError(description: "serial \(hex)") }
        func value(_ digit: UInt8) throws -> UInt8 {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
            default: throw FuzzSetupError(description: "serial \(hex)")
            }
        }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            bytes.append(try value(digits[index]) << 4 | value(digits[index + 1]))
        }
        while bytes.count > 1, bytes[0] == 0, bytes[1] < 0x80 { bytes.removeFirst() }
        if let top = bytes.first, top >= 0x80 { bytes.insert(0, at: 0) }
        return bytes
    }

    /// Whether `der` holds an INTEGER (tag 2) with exactly these content octets, its length in
    /// any form OpenSSL's decoder takes (short, or long with leading zero octets).
    static func containsInteger(_ content: [UInt8], in der: [UInt8]) -> Bool {
        var index = 0
        while index + 1 < der.count {
            defer { index += 1 }
            guard der[index] == 0x02 else { continue }
            var cursor = index + 1
            let first = der[cursor]
            cursor += 1
            var length = 0
            if first < 0x80 {
                length = Int(first)
            } else {
                let octets = Int(first & 0x7F)
                guard octets >= 1, octets <= 8, cursor + octets <= der.count else { continue }
                var overflow = false
                for octet in der[cursor..<(cursor + octets)] {
                    if length > (Int.max >> 8) { overflow = true; break }
                    length = length << 8 | Int(octet)
                }
                if overflow { continue }
                cursor += octets
            }
            if length == content.count, cursor + length <= der.count, Array(der[cursor..<(cursor + length)]) == content {
                return true
            }
        }
        return false
    }
}

// MARK: - Invariants

/// What every answer must look like whatever came in: an exit code the contract allows,
/// JSON answers (one a line outside CGI), and logs that stay one JSON object a line.
enum FuzzChecks {
    static func streamAnswer(_ result: FunctionRunResult, exitCodes: Set<Int32>) throws {
        try exitCode(result, exitCodes)
        guard result.stdout.last == UInt8(ascii: "\n") else {
            throw FuzzFinding("stdout does not end with a newline: \(preview(result.stdout))")
        }
        for line in result.stdout.split(separator: UInt8(ascii: "\n")) {
            try jsonObject(line, "an answer line")
        }
        try logs(result)
    }

    static func cgiAnswer(_ result: FunctionRunResult, exitCodes: Set<Int32>) throws {
        try exitCode(result, exitCodes)
        let separator = Array("\r\n\r\n".utf8)
        guard result.stdout.starts(with: Array("Status: ".utf8)),
              let end = result.stdout.indices.first(where: { result.stdout[$0...].starts(with: separator) })
        else { throw FuzzFinding("not a CGI response: \(preview(result.stdout))") }
        try jsonObject(result.stdout[(end + separator.count)...], "the CGI body")
        try logs(result)
    }

    private static func exitCode(_ result: FunctionRunResult, _ allowed: Set<Int32>) throws {
        guard allowed.contains(result.exitCode) else {
            throw FuzzFinding("exit \(result.exitCode) (allowed: \(allowed.sorted())); stdout \(preview(result.stdout)); stderr \(preview(result.stderr))")
        }
    }

    private static func logs(_ result: FunctionRunResult) throws {
        for line in result.stderr.split(separator: UInt8(ascii: "\n")) {
            try jsonObject(line, "a log line")
        }
    }

    private static func jsonObject(_ bytes: ArraySlice<UInt8>, _ what: String) throws {
        guard (try? JSONDecoder().decode(AnyJSONObject.self, from: Data(bytes))) != nil else {
            throw FuzzFinding("\(what) is not a JSON object: \(preview(Array(bytes)))")
        }
    }

    /// Decodes only when the whole document is valid JSON (the decoder scans all of it
    /// first) and its top level is an object; reads nothing else, so the check stays cheap.
    private struct AnyJSONObject: Decodable {
        private struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        init(from decoder: any Decoder) throws {
            _ = try decoder.container(keyedBy: Key.self)
        }
    }

    private static func preview(_ bytes: [UInt8]) -> String {
        let text = String(decoding: bytes.prefix(300), as: UTF8.self)
        return bytes.count > 300 ? "\(text)… (\(bytes.count) bytes)" : text
    }
}

/// `catalog`: a catalog file read twice (both readings must agree). A catalog that is
/// accepted must hold what the reader promises: at least one app, no bundle id twice, every
/// product of one of the apps granting only declared entitlements (none for a consumable),
/// every entitlement granted, a duration only on a non-renewing subscription. A mistake must
/// name its field, and name it with the message's first words.
enum FuzzCatalog {
    static func run(_ input: [UInt8]) throws -> String {
        let first = Result { () throws(CatalogError) in try Catalog.parse(input) }
        let second = Result { () throws(CatalogError) in try Catalog.parse(input) }
        switch (first, second) {
        case (.success(let catalog), .success(let again)):
            guard catalog == again else { throw FuzzFinding("two readings of one catalog differ") }
            try check(catalog)
            return "accepted \(catalog.apps.count) apps, \(catalog.products.count) products"
        case (.failure(let error), .failure(let again)):
            guard error == again, error.description == again.description else {
                throw FuzzFinding("two readings refuse differently: \(error) / \(again)")
            }
            guard error.field.isEmpty || error.description.hasPrefix(error.field + ": ") else {
                throw FuzzFinding("the message does not start with its field: \(error)")
            }
            return "refused \(error.kind.rawValue)"
        default:
            throw FuzzFinding("one reading accepts, the other refuses")
        }
    }

    private static func check(_ catalog: Catalog) throws {
        guard !catalog.apps.isEmpty, Set(catalog.apps.map(\.bundleId)).count == catalog.apps.count else {
            throw FuzzFinding("accepted apps \(catalog.apps.map(\.bundleId))")
        }
        for app in catalog.apps where !CatalogApp.isValidBundleId(app.bundleId) || app.environments.isEmpty
            || (app.environments.contains(.production) && app.appAppleId == nil) {
            throw FuzzFinding("accepted app \(app)")
        }
        for (id, product) in catalog.products {
            guard product.productId == id, catalog.app(bundleId: product.bundleId) != nil,
                  product.entitlements.allSatisfy({ catalog.entitlements[$0] != nil }),
                  product.type != .consumable || product.entitlements.isEmpty,
                  product.durationDays.map({ $0 > 0 && product.type == .nonRenewingSubscription }) ?? true
            else { throw FuzzFinding("accepted product \(product)") }
        }
        let granted = Set(catalog.products.values.flatMap(\.entitlements))
        guard Set(catalog.entitlements.keys).isSubset(of: granted) else {
            throw FuzzFinding("accepted entitlements nobody grants: \(Set(catalog.entitlements.keys).subtracting(granted))")
        }
    }
}
