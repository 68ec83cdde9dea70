import FoundationEssentials
import StorekeeperCore

/// Adds, next to each signed field of an App Store Server API answer, its verified and decoded
/// payload: `signedTransactionInfo` → `transactionInfo`, `signedRenewalInfo` → `renewalInfo`,
/// `signedTransactions` → `transactions`, `signedPayload` → `payload`,
/// `signedAppTransactionInfo` → `appTransactionInfo`. A field that fails verification decodes
/// to `{"verificationError": {"code", "message"}}`; the rest of the answer still decodes.
struct SignedFieldDecoder {
    static let fields: [String: (name: String, type: SignedDataType)] = [
        "signedTransactionInfo": ("transactionInfo", .transaction),
        "signedRenewalInfo": ("renewalInfo", .renewalInfo),
        "signedTransactions": ("transactions", .transaction),
        "signedPayload": ("payload", .notification),
        "signedAppTransactionInfo": ("appTransactionInfo", .appTransaction),
    ]

    let verifier: SignedDataVerifier
    let now: Date
    private(set) var failures = 0

    init(verifier: SignedDataVerifier, now: Date) {
        self.verifier = verifier
        self.now = now
    }

    mutating func decode(_ value: JSONValue) -> JSONValue {
        switch value {
        case .array(let items):
            return .array(items.map { decode($0) })
        case .object(var object):
            for (key, field) in object {
                if let (name, type) = Self.fields[key] {
                    switch field {
                    case .string(let jws):
                        object[name] = verify(jws, type)
                    case .array(let items):
                        object[name] = .array(items.map { $0.stringValue.map { verify($0, type) } ?? .null })
                    default:
                        break
                    }
                } else {
                    object[key] = decode(field)
                }
            }
            return .object(object)
        default:
            return value
        }
    }

    private mutating func verify(_ jws: String, _ type: SignedDataType) -> JSONValue {
        do {
            let verified = try verifier.verify(jws, as: type, now: now)
            let payload = try JSONDecoder().decode(JSONValue.self, from: Data(verified.payload))
            // A notification's nested signed fields decode too.
            return decode(payload)
        } catch let error as VerificationError {
            failures += 1
            return .object(["verificationError": .object(["code": .string(error.code), "message": .string(error.reason)])])
        } catch {
            failures += 1
            return .object(["verificationError": .object(["code": .string("INVALID_JWT_FORMAT"), "message": .string("\(error)")])])
        }
    }
}
