import FoundationEssentials
import FunctionRuntime
import OpenSSLCrypto
import StorekeeperCore

/// The keys checks: each private key a function signs with, read as that function reads it.
extension DoctorFunction {
    /// A private key as a function reads it: its id's setting, its file's setting, and the
    /// settings it is useless without.
    struct KeySettings {
        let check: String
        let purpose: String
        let keyId: Setting<String>
        let keyFile: Setting<String>
        let companions: [SettingDeclaration]
    }

    static let keys: [KeySettings] = [
        KeySettings(check: "app-store-api-key", purpose: "the App Store Server API key",
                    keyId: StorekeeperSettings.apiKeyId, keyFile: StorekeeperSettings.apiPrivateKey,
                    companions: [StorekeeperSettings.apiIssuerId.declaration]),
        KeySettings(check: "sign-in-with-apple-key", purpose: "the Sign in with Apple key",
                    keyId: StorekeeperSettings.siwaKeyId, keyFile: StorekeeperSettings.siwaPrivateKey,
                    companions: [StorekeeperSettings.siwaTeamId.declaration, StorekeeperSettings.siwaClientIds.declaration]),
        KeySettings(check: "offer-key", purpose: "the subscription offer key",
                    keyId: StorekeeperSettings.offerKeyId, keyFile: StorekeeperSettings.offerPrivateKey, companions: []),
    ]

    func keyCheck(_ key: KeySettings) -> DoctorCheck {
        let id = environment.optional(key.keyId.name)
        let path = environment.optional(key.keyFile.name)
        switch (id, path) {
        case (nil, nil):
            return .skipped(key.check, "\(key.keyId.name) and \(key.keyFile.name) are not set: \(key.purpose) is not configured")
        case (.some, nil):
            return .problem(key.check, "\(key.keyId.name) is set without \(key.keyFile.name): \(key.purpose) has an id but no key")
        case (nil, .some):
            return .problem(key.check, "\(key.keyFile.name) is set without \(key.keyId.name): \(key.purpose) has a key but no id")
        case (.some(let id), .some(let path)):
            return keyCheck(key, id: id, path: path)
        }
    }

    private func keyCheck(_ key: KeySettings, id: String, path: String) -> DoctorCheck {
        guard let pem = try? String(contentsOfFile: path, encoding: .utf8) else {
            return .problem(key.check, "\(key.keyFile.name): cannot read \(path)")
        }
        // The kind every key here must be: ES256 signs with P-256 only. The key's bytes never
        // reach the answer, only whether they parse.
        guard (try? ECPrivateKey(pem: pem)) != nil else {
            return .problem(key.check, "\(key.keyFile.name): \(path) is not a P-256 private key in PKCS#8 PEM (an App Store Connect .p8 file)")
        }
        var faults: [String] = []
        var status = DoctorCheck.Status.ok
        if let named = Self.keyIdInFileName(path), named != id {
            faults.append("the file is named for key \(named) but \(key.keyId.name) is \(id): the tokens would carry the wrong kid and Apple refuses them")
            status = .problem
        }
        for companion in key.companions where environment.optional(companion.name) == nil {
            faults.append("\(companion.name) is not set, and \(key.purpose) is unusable without it")
            status = .problem
        }
        if !Self.looksLikeAppleKeyId(id) {
            faults.append("\(key.keyId.name) \(id) is not 10 letters and digits, as Apple's key ids are")
            status = max(status, .warning)
        }
        let facts = "key \(id) from \(path): a P-256 private key"
        return DoctorCheck(key.check, status, faults.isEmpty ? facts : facts + "; " + faults.joined(separator: "; "))
    }

    /// The id in the name Apple gives a downloaded key: AuthKey_<ID>.p8 (API and Sign in with
    /// Apple keys) or SubscriptionKey_<ID>.p8 (In-App Purchase keys); nil for any other name.
    static func keyIdInFileName(_ path: String) -> String? {
        let file = path.split(separator: "/").last.map(String.init) ?? path
        guard file.hasSuffix(".p8") else { return nil }
        for prefix in ["AuthKey_", "SubscriptionKey_"] where file.hasPrefix(prefix) {
            let id = file.dropFirst(prefix.count).dropLast(".p8".count)
            return id.isEmpty ? nil : String(id)
        }
        return nil
    }

    static func looksLikeAppleKeyId(_ id: String) -> Bool {
        id.utf8.count == 10 && id.utf8.allSatisfy { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }
}
