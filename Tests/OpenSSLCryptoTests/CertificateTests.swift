import Foundation
import Testing
import OpenSSLCrypto

@Suite(.enabled(if: OpenSSLCLI.isAvailable, "openssl CLI not installed: certificate tests skipped"))
struct CertificateTests {
    @Test func appleExtensionsByDottedOID() throws {
        let pki = try TestPKI.generated.get()
        #expect(pki.leaf.hasExtension(oid: TestPKI.receiptSignerOID))
        #expect(!pki.leaf.hasExtension(oid: TestPKI.wwdrIntermediateOID))
        #expect(pki.intermediate.hasExtension(oid: TestPKI.wwdrIntermediateOID))
        #expect(!pki.intermediate.hasExtension(oid: TestPKI.receiptSignerOID))
        #expect(!pki.rootA.hasExtension(oid: TestPKI.receiptSignerOID))
        // Standard extensions are found by OID too; names and junk are not OIDs.
        #expect(pki.leaf.hasExtension(oid: "2.5.29.19"))
        #expect(!pki.leaf.hasExtension(oid: "basicConstraints"))
        #expect(!pki.leaf.hasExtension(oid: "not an oid"))
        #expect(!pki.leaf.hasExtension(oid: ""))
    }

    @Test func certificateAuthorityFlag() throws {
        let pki = try TestPKI.generated.get()
        #expect(pki.rootA.isCertificateAuthority)
        #expect(pki.intermediate.isCertificateAuthority)
        #expect(!pki.leaf.isCertificateAuthority)
    }

    @Test func validityPeriod() throws {
        let pki = try TestPKI.generated.get()
        let leaf = pki.leaf
        #expect(abs(leaf.notBefore.timeIntervalSinceNow) < 3_600, "notBefore \(leaf.notBefore)")
        #expect(leaf.notAfter.timeIntervalSince(leaf.notBefore) == 365 * 86_400)
        #expect(pki.shortLeaf.notAfter.timeIntervalSince(pki.shortLeaf.notBefore) == 86_400)

        // Same instant as the CLI prints it.
        let printed = String(decoding: try OpenSSLCLI.run(
            ["x509", "-in", "leaf.pem", "-noout", "-enddate"], in: pki.directory), as: UTF8.self)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "MMM d HH:mm:ss yyyy 'GMT'"
        let text = printed.trimmingCharacters(in: .whitespacesAndNewlines)
            .replacingOccurrences(of: "notAfter=", with: "")
            .replacingOccurrences(of: "  ", with: " ")
        #expect(formatter.date(from: text) == leaf.notAfter, "\(text)")
    }

    @Test func namesSerialAndOCSP() throws {
        let pki = try TestPKI.generated.get()
        #expect(pki.leaf.subjectSummary == "CN=Test Leaf,O=Storekeeper Test,C=US")
        #expect(pki.leaf.issuerSummary == "CN=Test Intermediate,O=Storekeeper Test,C=US")
        #expect(pki.leaf.serialNumberHex == TestPKI.Generated.leafSerialHex)
        #expect(pki.leaf.ocspResponderURLs == [TestPKI.Generated.ocspURL])
        #expect(pki.rootA.ocspResponderURLs.isEmpty)
        #expect(pki.leaf.description.contains("Test Leaf"))
    }

    @Test func fingerprintMatchesTheCLI() throws {
        let pki = try TestPKI.generated.get()
        let printed = String(decoding: try OpenSSLCLI.run(
            ["x509", "-in", "leaf.pem", "-noout", "-fingerprint", "-sha256"], in: pki.directory), as: UTF8.self)
        let expected = printed.split(separator: "=").last.map {
            $0.replacingOccurrences(of: ":", with: "").trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        }
        #expect(hexString(pki.leaf.sha256Fingerprint) == expected)
    }

    @Test func subjectPublicKey() throws {
        let pki = try TestPKI.generated.get()
        let leafKey = try ECPrivateKey(pem: try pki.text("leaf.key"))
        let certificateKey = try pki.leaf.publicKey()
        #expect(certificateKey == leafKey.publicKey)
        let message = Array("signed by the leaf".utf8)
        #expect(certificateKey.isValidES256Signature(try leafKey.signES256(message), for: message))
        // Root B is P-384: not a key that can check ES256.
        #expect(throws: CryptoError.self) { try pki.rootB.publicKey() }
    }

    @Test func derAndPEMAgree() throws {
        let pki = try TestPKI.generated.get()
        let reparsed = try Certificate(der: pki.leaf.der)
        #expect(reparsed == pki.leaf)
        #expect(reparsed.der == pki.leaf.der)
        let bundle = try pki.text("intermediate.pem") + "some text between blocks\n" + pki.text("rootA.pem")
        let certificates = try Certificate.certificates(fromPEM: bundle)
        #expect(certificates == [pki.intermediate, pki.rootA])
    }

    @Test func loadsFilesAndDirectories() throws {
        let pki = try TestPKI.generated.get()
        let directory = try makeTemporaryDirectory("load")
        defer { removeTemporaryDirectory(directory) }
        try OpenSSLCLI.run(["x509", "-in", pki.path("rootA.pem"), "-outform", "DER", "-out", "rootA.cer"], in: directory)
        try pki.text("rootB.pem").write(to: directory.appendingPathComponent("rootB.PEM"), atomically: true, encoding: .utf8)
        try (pki.text("intermediate.pem") + pki.text("leaf.pem"))
            .write(to: directory.appendingPathComponent("chain.crt"), atomically: true, encoding: .utf8)
        try "ignored".write(to: directory.appendingPathComponent("README.txt"), atomically: true, encoding: .utf8)

        let der = try Certificate.load(path: directory.appendingPathComponent("rootA.cer").path)
        #expect(der == [pki.rootA])
        let all = try Certificate.load(path: directory.path)
        // Name order: chain.crt, rootA.cer, rootB.PEM.
        #expect(all == [pki.intermediate, pki.leaf, pki.rootA, pki.rootB])
    }

    @Test func fileContentsTellConfigurationsApart() throws {
        let pki = try TestPKI.generated.get()
        let directory = try makeTemporaryDirectory("contents")
        defer { removeTemporaryDirectory(directory) }
        try pki.text("rootA.pem").write(to: directory.appendingPathComponent("a.pem"), atomically: true, encoding: .utf8)
        try pki.text("rootB.pem").write(to: directory.appendingPathComponent("b.pem"), atomically: true, encoding: .utf8)
        let a = try Certificate.fileContents(path: directory.appendingPathComponent("a.pem").path)
        let b = try Certificate.fileContents(path: directory.appendingPathComponent("b.pem").path)
        #expect(a != b)
        #expect(a == (try Certificate.fileContents(path: directory.appendingPathComponent("a.pem").path)))
        // A folder reads the same files load(path:) would, in name order.
        let folder = try Certificate.fileContents(path: directory.path)
        #expect(folder.count > a.count + b.count - 8)
        try FileManager.default.removeItem(at: directory.appendingPathComponent("b.pem"))
        #expect(try Certificate.fileContents(path: directory.path) != folder)
        #expect(throws: CryptoError.self) { try Certificate.fileContents(path: directory.appendingPathComponent("missing.pem").path) }
    }

    @Test func loadFailures() throws {
        let directory = try makeTemporaryDirectory("load-fail")
        defer { removeTemporaryDirectory(directory) }
        #expect(throws: CryptoError.self) { try Certificate.load(path: directory.appendingPathComponent("missing.pem").path) }
        #expect(throws: CryptoError.self) { try Certificate.load(path: directory.path) }  // no certificate files
        try "not a certificate".write(to: directory.appendingPathComponent("bad.der"), atomically: true, encoding: .utf8)
        let error = #expect(throws: CryptoError.self) { try Certificate.load(path: directory.path) }
        #expect(error?.operation.contains("bad.der") == true, "\(String(describing: error))")
    }

    @Test func malformedDERIsRejected() throws {
        let pki = try TestPKI.generated.get()
        #expect(throws: CryptoError.self) { try Certificate(der: []) }
        #expect(throws: CryptoError.self) { try Certificate(der: Array(pki.leaf.der.dropLast())) }
        #expect(throws: CryptoError.self) { try Certificate(der: pki.leaf.der + [0]) }
        #expect(throws: CryptoError.self) { try Certificate.certificates(fromPEM: try pki.text("leaf.key")) }
    }
}
