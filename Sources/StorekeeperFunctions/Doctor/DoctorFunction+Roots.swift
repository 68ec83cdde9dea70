import FoundationEssentials
import FunctionRuntime
import OpenSSLCrypto
import StorekeeperCore

/// The roots check: every certificate APPSTORE_ROOT_CERTS names, as the verifier would load it.
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
}
