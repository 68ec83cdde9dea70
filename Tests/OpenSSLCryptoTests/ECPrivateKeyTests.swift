import Foundation
import Testing
import OpenSSLCrypto

@Suite struct ECPrivateKeyTests {
    @Test func signAndVerifyRoundTrip() throws {
        let key = try ECPrivateKey.generateP256()
        for message in [[], Array("header.payload".utf8), [UInt8](repeating: 7, count: 100_000)] {
            let signature = try key.signES256(message)
            #expect(signature.count == 64)
            #expect(key.publicKey.isValidES256Signature(signature, for: message))
            #expect(!key.publicKey.isValidES256Signature(signature, for: message + [0]))
        }
    }

    @Test func anotherKeyDoesNotVerify() throws {
        let signer = try ECPrivateKey.generateP256()
        let other = try ECPrivateKey.generateP256()
        let message = Array("hello".utf8)
        #expect(!other.publicKey.isValidES256Signature(try signer.signES256(message), for: message))
    }

    @Test func signaturesAreRandomizedButAllVerify() throws {
        let key = try ECPrivateKey.generateP256()
        let message = Array("same message".utf8)
        let signatures = try (0..<20).map { _ in try key.signES256(message) }
        #expect(Set(signatures.map(hexString)).count == 20)
        // Some of these almost surely have r or s below 2^248, exercising the left padding.
        #expect(signatures.allSatisfy { key.publicKey.isValidES256Signature($0, for: message) })
    }

    @Test func signaturesWithShortROrSVerify() throws {
        // About 1 in 256 signatures has r (or s) below 2^248, so its DER INTEGER is shorter
        // and the raw half must be left-padded. Sign until both cases have been seen.
        let key = try ECPrivateKey.generateP256()
        let message = Array("leading zeros".utf8)
        var shortR: [UInt8]?
        var shortS: [UInt8]?
        for _ in 0..<20_000 where shortR == nil || shortS == nil {
            let signature = try key.signES256(message)
            if signature[0] == 0, shortR == nil { shortR = signature }
            if signature[32] == 0, shortS == nil { shortS = signature }
        }
        for signature in [shortR, shortS] {
            let signature = try #require(signature)
            #expect(signature.count == 64)
            #expect(key.publicKey.isValidES256Signature(signature, for: message))
            let der = try ECDSASignatureEncoding.rawToDER(signature)
            #expect(der.count < 72)
            #expect(try ECDSASignatureEncoding.derToRaw(der) == signature)
        }
    }

    @Test func pkcs8PEMRoundTrip() throws {
        let key = try ECPrivateKey.generateP256()
        let pem = try key.pkcs8PEM()
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let reloaded = try ECPrivateKey(pem: pem)
        #expect(reloaded.publicKey == key.publicKey)
        let message = Array("reload".utf8)
        #expect(key.publicKey.isValidES256Signature(try reloaded.signES256(message), for: message))
    }

    @Test func garbageAndWrongLabelsAreRejected() {
        #expect(throws: CryptoError.self) { try ECPrivateKey(pem: "") }
        #expect(throws: CryptoError.self) {
            try ECPrivateKey(pem: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
        }
        #expect(throws: CryptoError.self) {
            try ECPrivateKey(pem: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n")
        }
    }
}

/// PEM files written by the `openssl` CLI, and signatures checked both ways.
@Suite(.enabled(if: OpenSSLCLI.isAvailable, "openssl CLI not installed: interop tests skipped"))
struct ECPrivateKeyInteropTests {
    @Test func loadsPKCS8AndSEC1() throws {
        let directory = try makeTemporaryDirectory("ec-priv")
        defer { removeTemporaryDirectory(directory) }
        // Without -noout, ecparam writes an "EC PARAMETERS" block first; it must be skipped.
        try OpenSSLCLI.run(["ecparam", "-name", "prime256v1", "-genkey", "-out", "sec1.pem"], in: directory)
        try OpenSSLCLI.run(["pkcs8", "-topk8", "-nocrypt", "-in", "sec1.pem", "-out", "p8.pem"], in: directory)
        let sec1 = try String(contentsOf: directory.appendingPathComponent("sec1.pem"), encoding: .utf8)
        let p8 = try String(contentsOf: directory.appendingPathComponent("p8.pem"), encoding: .utf8)
        #expect(sec1.contains("BEGIN EC PARAMETERS") && sec1.contains("BEGIN EC PRIVATE KEY"))
        #expect(p8.contains("BEGIN PRIVATE KEY"))
        let fromSEC1 = try ECPrivateKey(pem: sec1)
        let fromPKCS8 = try ECPrivateKey(pem: p8)
        #expect(fromSEC1.publicKey == fromPKCS8.publicKey)
        let cliPublic = String(decoding: try OpenSSLCLI.run(["ec", "-in", "p8.pem", "-pubout"], in: directory), as: UTF8.self)
        #expect(try ECPublicKey(pem: cliPublic) == fromPKCS8.publicKey)
    }

    @Test func otherKeyTypesAreRejected() throws {
        let directory = try makeTemporaryDirectory("ec-priv-other")
        defer { removeTemporaryDirectory(directory) }
        try OpenSSLCLI.run(["ecparam", "-name", "secp384r1", "-genkey", "-noout", "-out", "p384.pem"], in: directory)
        try OpenSSLCLI.run(["genrsa", "-out", "rsa.pem", "2048"], in: directory)
        let p384 = try String(contentsOf: directory.appendingPathComponent("p384.pem"), encoding: .utf8)
        let rsa = try String(contentsOf: directory.appendingPathComponent("rsa.pem"), encoding: .utf8)
        #expect(throws: CryptoError.self) { try ECPrivateKey(pem: p384) }
        #expect(throws: CryptoError.self) { try ECPrivateKey(pem: rsa) }
    }

    @Test func cliVerifiesOurSignaturesAndWeVerifyTheirs() throws {
        let directory = try makeTemporaryDirectory("ec-cross")
        defer { removeTemporaryDirectory(directory) }
        let key = try ECPrivateKey.generateP256()
        try key.pkcs8PEM().write(to: directory.appendingPathComponent("key.pem"), atomically: true, encoding: .utf8)
        let message = Array("eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJ0ZXN0In0".utf8)
        try Data(message).write(to: directory.appendingPathComponent("message"))

        // Ours → OpenSSL CLI (which wants DER).
        let raw = try key.signES256(message)
        try Data(try ECDSASignatureEncoding.rawToDER(raw)).write(to: directory.appendingPathComponent("ours.der"))
        let verdict = try OpenSSLCLI.run(
            ["dgst", "-sha256", "-prverify", "key.pem", "-signature", "ours.der", "message"], in: directory)
        #expect(String(decoding: verdict, as: UTF8.self).contains("Verified OK"))

        // OpenSSL CLI → ours. Its DER must survive derToRaw → rawToDER byte for byte.
        for index in 0..<5 {
            try OpenSSLCLI.run(["dgst", "-sha256", "-sign", "key.pem", "-out", "theirs\(index).der", "message"], in: directory)
            let der = [UInt8](try Data(contentsOf: directory.appendingPathComponent("theirs\(index).der")))
            let converted = try ECDSASignatureEncoding.derToRaw(der)
            #expect(key.publicKey.isValidES256Signature(converted, for: message))
            #expect(try ECDSASignatureEncoding.rawToDER(converted) == der)
        }
    }
}
