import Foundation
import Testing
import OpenSSLCrypto

@Suite(.enabled(if: OCSPFixtures.toolsAvailable, "openssl, curl or timeout CLI not installed: OCSP tests skipped"))
struct OCSPRequestTests {
    /// Writes `der` to a temporary file and runs `openssl ocsp -reqin <file> <arguments>`.
    private static func openssl(reading der: [UInt8], _ arguments: [String]) throws -> String {
        let directory = try makeTemporaryDirectory("ocsp-request")
        defer { removeTemporaryDirectory(directory) }
        try Data(der).write(to: directory.appendingPathComponent("request.der"))
        let output = try OpenSSLCLI.run(["ocsp", "-reqin", "request.der"] + arguments, in: directory)
        return String(decoding: output, as: UTF8.self)
    }

    @Test func withoutNonceItIsByteForByteWhatTheOpenSSLCLIBuilds() throws {
        let request = try OCSPRequest.make(
            for: OCSPFixtures.certificate("leaf"), issuer: OCSPFixtures.certificate("intermediate"))
        let directory = try makeTemporaryDirectory("ocsp-request-cli")
        defer { removeTemporaryDirectory(directory) }
        try OpenSSLCLI.run(
            ["ocsp", "-issuer", OCSPFixtures.path("intermediate.pem"), "-cert", OCSPFixtures.path("leaf.pem"),
             "-no_nonce", "-reqout", "cli.der"],
            in: directory)
        let cli = [UInt8](try Data(contentsOf: directory.appendingPathComponent("cli.der")))
        #expect(request.der == cli)
        #expect(!request.hasNonce)
    }

    @Test func opensslParsesItAsASHA1CertIDForTheSerial() throws {
        let request = try OCSPRequest.make(
            for: OCSPFixtures.certificate("leaf-revoked"), issuer: OCSPFixtures.certificate("intermediate"), nonce: true)
        let text = try Self.openssl(reading: request.der, ["-req_text"])
        #expect(text.contains("Hash Algorithm: sha1"), "\(text)")
        #expect(text.contains("Serial Number: 3003"), "\(text)")
        #expect(text.contains("OCSP Nonce"), "\(text)")
        #expect(request.hasNonce)
    }

    @Test func theCertificateIDHashKeysTheCertificateNotTheRequest() throws {
        let intermediate = try OCSPFixtures.certificate("intermediate")
        let leaf = try OCSPFixtures.certificate("leaf")
        let plain = try OCSPRequest.make(for: leaf, issuer: intermediate)
        let first = try OCSPRequest.make(for: leaf, issuer: intermediate, nonce: true)
        let second = try OCSPRequest.make(for: leaf, issuer: intermediate, nonce: true)
        let revoked = try OCSPRequest.make(for: OCSPFixtures.certificate("leaf-revoked"), issuer: intermediate)

        #expect(plain.certificateIDHash.count == 32)
        #expect(first.certificateIDHash == plain.certificateIDHash)
        #expect(second.certificateIDHash == plain.certificateIDHash)
        #expect(revoked.certificateIDHash != plain.certificateIDHash)
        // Nonces are random: two nonce requests differ, and differ from the plain one.
        #expect(first.der != second.der)
        #expect(first.der != plain.der)
        #expect(try OCSPRequest.make(for: leaf, issuer: intermediate) == plain)
    }

    @Test func theIssuersOwnStatusIsAskedOfTheRoot() throws {
        let request = try OCSPRequest.make(
            for: OCSPFixtures.certificate("intermediate"), issuer: OCSPFixtures.certificate("root"))
        let text = try Self.openssl(reading: request.der, ["-req_text"])
        #expect(text.contains("Serial Number: 2000"), "\(text)")
    }

    @Test func aCertificateFromAnotherIssuerIsRefused() throws {
        let leaf = try OCSPFixtures.certificate("leaf")
        // The root did not issue the leaf; other-intermediate has the right name but not the key.
        for stem in ["root", "other-intermediate"] {
            let error = #expect(throws: CryptoError.self) {
                try OCSPRequest.make(for: leaf, issuer: OCSPFixtures.certificate(stem))
            }
            #expect(error?.operation == "X509_check_issued", "\(stem): \(String(describing: error))")
        }
    }
}
