import FoundationEssentials
import FunctionRuntime
import OpenSSLCrypto
import StorekeeperCore

/// The key sign-offer signs with: the subscription offer key (`APPSTORE_OFFER_KEY_ID`,
/// `APPSTORE_OFFER_PRIVATE_KEY`), else the App Store Server API key (`APPSTORE_KEY_ID`,
/// `APPSTORE_PRIVATE_KEY`), always as a pair: one key's id with the other's file would sign
/// what Apple refuses. The JWS kinds also need `APPSTORE_ISSUER_ID`. Missing or unreadable
/// key material is exit 78, naming the variable, never the key.
struct OfferKeySettings {
    static let variables: [SettingUse] = [
        .declared(StorekeeperSettings.offerKeyId), .declared(StorekeeperSettings.offerPrivateKey),
        SettingUse(declaration: StorekeeperSettings.apiKeyId.declaration,
                   requirement: .requiredUnless(StorekeeperSettings.offerKeyId.name), note: "signs offers when the offer key is not set"),
        SettingUse(declaration: StorekeeperSettings.apiPrivateKey.declaration,
                   requirement: .requiredUnless(StorekeeperSettings.offerPrivateKey.name), note: "with APPSTORE_KEY_ID"),
        .optional(StorekeeperSettings.apiIssuerId,
                  "required by the JWS kinds (promotionalOfferV2, introductoryOfferEligibility, advancedCommerceInApp): exit 78 without it"),
    ]

    /// For a function that works without a key (retention-message answers its default
    /// message instead of an offer): every key variable optional.
    static let optionalVariables: [SettingUse] = [
        .optional(StorekeeperSettings.offerKeyId, "signs the promotional offers of retention rules"),
        .optional(StorekeeperSettings.offerPrivateKey),
        .optional(StorekeeperSettings.apiKeyId, "signs offers when the offer key is not set"),
        .optional(StorekeeperSettings.apiPrivateKey, "with APPSTORE_KEY_ID"),
        .optional(StorekeeperSettings.apiIssuerId, "required by promotionalOfferSignatureV2"),
    ]

    let keyId: String
    let privateKey: ECPrivateKey
    /// nil when APPSTORE_ISSUER_ID is not set: the original promotional offer signature works.
    private let issuerId: String?

    init(environment: EnvironmentVariables) throws {
        let offerKey = (id: StorekeeperSettings.offerKeyId, file: StorekeeperSettings.offerPrivateKey)
        let apiKey = (id: StorekeeperSettings.apiKeyId, file: StorekeeperSettings.apiPrivateKey)
        let pair = environment.isSet(offerKey.id) || environment.isSet(offerKey.file) ? offerKey : apiKey
        guard environment.isSet(pair.id), environment.isSet(pair.file) else {
            throw FunctionError.configuration(pair.id.name == offerKey.id.name
                ? "\(offerKey.id.name) and \(offerKey.file.name) are set together"
                : "set \(offerKey.id.name) and \(offerKey.file.name) (or \(apiKey.id.name) and \(apiKey.file.name))")
        }
        keyId = try environment.required(pair.id)
        privateKey = try Self.key(at: try environment.required(pair.file), name: pair.file.name)
        issuerId = try environment.value(StorekeeperSettings.apiIssuerId)
    }

    /// The key when one of the pairs is set at all (a half pair or an unreadable file is
    /// still exit 78: a mistake, not a choice); nil when none is.
    init?(ifConfiguredIn environment: EnvironmentVariables) throws {
        let names = [StorekeeperSettings.offerKeyId, StorekeeperSettings.offerPrivateKey,
                     StorekeeperSettings.apiKeyId, StorekeeperSettings.apiPrivateKey]
        guard names.contains(where: { environment.isSet($0) }) else { return nil }
        try self.init(environment: environment)
    }

    /// The issuer id the JWS kinds carry as `iss`.
    func issuer(for kind: String) throws -> String {
        guard let issuerId else {
            throw FunctionError.configuration("\(StorekeeperSettings.apiIssuerId.name) is required to sign \(kind)")
        }
        return issuerId
    }

    private static func key(at path: String, name: String) throws -> ECPrivateKey {
        guard let pem = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw FunctionError.configuration("\(name): cannot read \(path)")
        }
        do {
            return try ECPrivateKey(pem: pem)
        } catch {
            throw FunctionError.configuration("\(name): \(path) is not a P-256 PKCS#8 PEM key")
        }
    }
}
