import FoundationEssentials
import FunctionRuntime
import OpenSSLCrypto
import StorekeeperCore

/// The checks of what the environment names: roots, keys, catalog, tokens. Each reads its
/// settings through the declarations every other function reads them with, so a mistake the
/// doctor reports is the mistake those functions would stop on.
extension DoctorFunction {
    /// Apple's roots by their SHA-256 fingerprints, pinned as infra/apple-roots/fetch.sh pins
    /// them (the values published at https://www.apple.com/certificateauthority/).
    static let appleRoots: [String: String] = [
        "63343ABFB89A6A03EBB57E9B3F5FA7BE7C4F5C756F3017B3A8C488C3653E9179": "Apple Root CA - G3 (App Store signed data)",
        "B0B1730ECBC7FF4505142C49F1295E6EDA6BCAED7E2C68C5BE91B5A11001F024": "Apple Inc. Root (legacy app receipts), not Apple Root CA - G3",
    ]

    /// A root that ends within this time is a warning: renew the configuration before it does.
    static let rootExpiryWarning: TimeInterval = 30 * 86_400

    // MARK: Roots

    func rootsCheck() -> DoctorCheck {
        let name = "roots"
        let setting = StorekeeperSettings.rootCertificates
        guard environment.isSet(setting) else {
            return .problem(name, "\(setting.name) is not set: no App Store signed data can be verified")
        }
        let paths: [String]
        do {
            paths = try environment.required(setting)
        } catch {
            return .problem(name, Self.message(error))
        }
        let now = context.clock.now()
        var worst = DoctorCheck.Status.ok
        var lines: [String] = []
        for path in paths {
            let certificates: [Certificate]
            do {
                certificates = try Certificate.load(path: path)
            } catch {
                worst = .problem
                lines.append("\(path) does not parse as certificates (\(error))")
                continue
            }
            if certificates.isEmpty {
                worst = .problem
                lines.append("\(path) holds no certificate")
            }
            for (index, certificate) in certificates.enumerated() {
                let label = certificates.count == 1 ? path : "\(path) #\(index + 1)"
                let (status, line) = Self.describe(certificate, at: now)
                worst = max(worst, status)
                lines.append("\(label): \(line)")
            }
        }
        return DoctorCheck(name, worst, lines.joined(separator: "; "))
    }

    /// One root's facts and faults at `now` (STOREKEEPER_NOW when set, as verification uses).
    static func describe(_ certificate: Certificate, at now: Date) -> (DoctorCheck.Status, String) {
        let fingerprint = certificate.sha256Fingerprint.map { byte in
            let hex = String(byte, radix: 16, uppercase: true)
            return hex.count == 1 ? "0" + hex : hex
        }
        let identity = appleRoots[fingerprint.joined()] ?? "not one of Apple's roots"
        var faults: [String] = []
        var status = DoctorCheck.Status.ok
        if !certificate.isCertificateAuthority {
            faults.append("it is not a CA certificate, so no chain can end at it")
            status = .problem
        }
        if now < certificate.notBefore {
            faults.append("it is not valid before \(day(certificate.notBefore))")
            status = .problem
        } else if now > certificate.notAfter {
            faults.append("it expired on \(day(certificate.notAfter))")
            status = .problem
        } else if certificate.notAfter.timeIntervalSince(now) < rootExpiryWarning {
            faults.append("it expires on \(day(certificate.notAfter)), within 30 days")
            status = max(status, .warning)
        }
        let facts = "\(certificate.subjectSummary), valid \(day(certificate.notBefore)) to \(day(certificate.notAfter)), "
            + "SHA-256 \(fingerprint.joined(separator: ":")), \(identity)"
        return (status, faults.isEmpty ? facts : facts + ": " + faults.joined(separator: "; "))
    }

    static func day(_ date: Date) -> String {
        String(UTCTimestamp.format(milliseconds: date.millisecondsSince1970).prefix(10))
    }

    // MARK: Keys

    /// A private key as a function reads it: its id's setting, its file's setting, and the
    /// settings it is useless without.
    struct KeySettings {
        let check: String
        let purpose: String
        let keyId: Setting<String>
        let keyFile: Setting<String>
        let companions: [Setting<String>]
    }

    static let keys: [KeySettings] = [
        KeySettings(check: "app-store-api-key", purpose: "the App Store Server API key",
                    keyId: StorekeeperSettings.apiKeyId, keyFile: StorekeeperSettings.apiPrivateKey,
                    companions: [StorekeeperSettings.apiIssuerId]),
        KeySettings(check: "sign-in-with-apple-key", purpose: "the Sign in with Apple key",
                    keyId: StorekeeperSettings.siwaKeyId, keyFile: StorekeeperSettings.siwaPrivateKey,
                    companions: [StorekeeperSettings.siwaTeamId]),
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

    // MARK: Catalog

    func catalogCheck() -> DoctorCheck {
        let name = "catalog"
        let catalog: Catalog
        do {
            catalog = try StorekeeperSettings.catalog(in: environment)
        } catch {
            return .problem(name, Self.message(error))
        }
        // As AppStoreSettings refuses at start: Production data is checked against the App Apple ID.
        for app in catalog.apps where app.appAppleId == nil && app.environments.contains(.production) {
            return .problem(name, "\(app.bundleId) accepts Production data but has no App Apple ID (\(StorekeeperSettings.appAppleId.name))")
        }
        let source = environment.isSet(StorekeeperSettings.catalog)
            ? "\(StorekeeperSettings.catalog.name) \(environment.optional(StorekeeperSettings.catalog.name) ?? "")"
            : "\(StorekeeperSettings.bundleId.name) and the APPSTORE_* variables"
        let apps = catalog.apps.map { "\($0.bundleId) (\($0.environments.map(\.rawValue).sorted().joined(separator: ", ")))" }
        let products = catalog.productsImplied ? "each product grants an entitlement of its name" : "\(catalog.products.count) products"
        return .ok(name, "from \(source): \(catalog.apps.count) app\(catalog.apps.count == 1 ? "" : "s"), \(apps.joined(separator: ", ")); \(products)")
    }

    // MARK: Tokens

    func tokensCheck() -> DoctorCheck {
        let name = "tokens"
        let admin = RuntimeSettings.adminToken.name
        let tokens: [NamedToken]?
        do {
            tokens = try NamedToken.configured(in: environment)
        } catch {
            return .problem(name, error.message)
        }
        guard let tokens else {
            return .warning(name, "neither \(admin) nor \(RuntimeSettings.tokens.name) is set: every internal function refuses HTTP callers (pipes and cron are unaffected)")
        }
        if let value = environment.optional(admin), value.utf8.count < NamedToken.shortestAccepted {
            return .problem(name, "\(admin) is \(value.utf8.count) characters; use at least \(NamedToken.shortestAccepted) (a short bearer token is guessable)")
        }
        let names = tokens.map { "\($0.name) (\($0.scope.rawValue))" }
        return .ok(name, "\(tokens.count) token\(tokens.count == 1 ? "" : "s"): \(names.joined(separator: ", "))")
    }

    /// A configuration error's own words (they name the variable, never a secret's value).
    static func message(_ error: any Error) -> String {
        if let error = error as? FunctionError { return error.message }
        if let error = error as? any CodedError { return error.reason }
        return String(describing: error)
    }
}
