import FoundationEssentials
import FunctionRuntime
import OpenSSLCrypto
import StorekeeperCore

/// `simulate-store`: a developer tool that signs App Store data exactly as Apple shapes it
/// (ES256 compact JWS, `x5c` leaf → intermediate → root), with a local test PKI made by
/// `Tests/Fixtures/pki/make-pki.sh`. It drives the demo and the end-to-end tests, and lets a
/// user test their own deployment. It can only sign with the keys in `SIMULATE_PKI_DIR`:
/// nothing it makes verifies against Apple's roots, so it is useless in production.
public final class SimulateStoreFunction: TypedFunction {
    public struct Request: RequestBody {
        public enum CodingKeys: String, CodingKey, CaseIterable {
            case sign, payload, chain
        }
        /// What to sign: notification, transaction, renewalInfo, appTransaction or realtimeRequest.
        var sign: String
        /// The decoded payload to sign, in Apple's field names.
        var payload: JSONValue
        /// File stems in SIMULATE_PKI_DIR to sign with (default leaf / intermediate / root),
        /// so tests can sign with the expired or wrong-root variants.
        var chain: ChainFiles?
    }

    public struct Response: Encodable {
        var signedData: String
    }

    struct ChainFiles: Decodable {
        var leaf: String?
        var intermediate: String?
        var root: String?
    }

    public static let descriptor = FunctionDescriptor(
        name: "simulate-store",
        route: nil,
        method: "POST",
        visibility: .internal,
        summary: "Developer tool (never in production): sign App Store notifications, transactions, renewal info, app transactions and realtime retention requests with a local test PKI.",
        request: """
            {"sign": "notification" | "transaction" | "renewalInfo" | "appTransaction" | "realtimeRequest",
             "payload": {... Apple's decoded fields ...},
             "chain": {"leaf": "leaf", "intermediate": "intermediate", "root": "root"}}   (optional file stems)
              For a notification, data.transactionInfo and data.renewalInfo (decoded objects) are
              signed and put in data.signedTransactionInfo / data.signedRenewalInfo, and
              appData.appTransactionInfo in appData.signedAppTransactionInfo; a missing
              notificationUUID, signedDate or version is filled in.
            """,
        response: """
            {"signedData": "<compact JWS>"}
            """,
        variables: [.declared(StorekeeperSettings.simulatePKIDirectory)]
    )

    private let pkiDirectory: String
    private let context: FunctionContext

    public init(context: FunctionContext) throws {
        pkiDirectory = try context.environment.required(StorekeeperSettings.simulatePKIDirectory)
        self.context = context
    }

    public func handle(_ request: Request, call: FunctionRequest) throws -> Reply<Response> {
        guard let type = SignedDataType(rawValue: request.sign) else {
            throw FunctionError.badInput(code: .invalidRequest, message: "sign must be one of \(SignedDataType.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard case .object(var payload) = request.payload else {
            throw FunctionError.badInput(code: .invalidRequest, message: "payload must be a JSON object")
        }
        let signer = try makeSigner(request.chain)
        let nowMilliseconds = JSONValue.number((context.clock.now().timeIntervalSince1970 * 1000).rounded())
        if payload["signedDate"] == nil { payload["signedDate"] = nowMilliseconds }

        if type == .notification {
            if payload["notificationUUID"] == nil { payload["notificationUUID"] = .string(UUID().uuidString.lowercased()) }
            if payload["version"] == nil { payload["version"] = .string("2.0") }
            if case .object(var data) = payload["data"] {
                if case .object(var transaction)? = data.removeValue(forKey: "transactionInfo") {
                    if transaction["signedDate"] == nil { transaction["signedDate"] = payload["signedDate"] }
                    data["signedTransactionInfo"] = .string(try signer.sign(JSONValue.object(transaction)))
                }
                if case .object(var renewal)? = data.removeValue(forKey: "renewalInfo") {
                    if renewal["signedDate"] == nil { renewal["signedDate"] = payload["signedDate"] }
                    data["signedRenewalInfo"] = .string(try signer.sign(JSONValue.object(renewal)))
                }
                payload["data"] = .object(data)
            }
            if case .object(var appData) = payload["appData"] {
                if case .object(var appTransaction)? = appData.removeValue(forKey: "appTransactionInfo") {
                    if appTransaction["signedDate"] == nil { appTransaction["signedDate"] = payload["signedDate"] }
                    appData["signedAppTransactionInfo"] = .string(try signer.sign(JSONValue.object(appTransaction)))
                }
                payload["appData"] = .object(appData)
            }
        }
        let jws = try signer.sign(JSONValue.object(payload))
        return Reply(Response(signedData: jws))
    }

    private func makeSigner(_ chain: ChainFiles?) throws -> JWSSigner {
        let leaf = chain?.leaf ?? "leaf"
        let stems = [leaf, chain?.intermediate ?? "intermediate", chain?.root ?? "root"]
        for stem in stems where stem.contains("/") || stem.hasPrefix(".") {
            throw FunctionError.badInput(code: .invalidRequest, message: "chain names a file stem, not a path: \(stem)")
        }
        do {
            let key = try ECPrivateKey(pem: try readText("\(pkiDirectory)/\(leaf).key"))
            var x5c: [String] = []
            for stem in stems {
                guard let certificate = try Certificate.load(path: "\(pkiDirectory)/\(stem).pem").first else {
                    throw FunctionError.configuration("\(StorekeeperSettings.simulatePKIDirectory.name): \(stem).pem holds no certificate")
                }
                x5c.append(Data(certificate.der).base64EncodedString())
            }
            return JWSSigner(key: key, header: JOSEHeader(alg: "ES256", x5c: x5c))
        } catch let error as FunctionError {
            throw error
        } catch {
            throw FunctionError.configuration("\(StorekeeperSettings.simulatePKIDirectory.name): cannot load the signing chain: \(error)")
        }
    }

    private func readText(_ path: String) throws -> String {
        String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
    }
}
