import Foundation
import Testing
import OpenSSLCrypto

@Suite struct RSAPrivateKeyTests {
    /// RSA key generation takes a while; share one key across the suite's tests.
    static let key = Result { try RSAPrivateKey.generate(bits: 2048) }

    @Test func signAndVerifyRoundTrip() throws {
        let key = try Self.key.get()
        #expect(key.publicKey.modulus.count == 256)
        #expect(key.publicKey.exponent == [0x01, 0x00, 0x01])
        let message = Array("eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJodHRwczovL2FwcGxlaWQuYXBwbGUuY29tIn0".utf8)
        let signature = try key.signRS256(message)
        #expect(signature.count == 256)
        #expect(key.publicKey.isValidRS256Signature(signature, for: message))
        #expect(!key.publicKey.isValidRS256Signature(signature, for: message + [0x20]))
        // PKCS#1 v1.5 is deterministic.
        #expect(try key.signRS256(message) == signature)
    }

    @Test func publicKeyFromJWKComponentsVerifies() throws {
        let key = try Self.key.get()
        let jwkKey = try RSAPublicKey(modulus: key.publicKey.modulus, exponent: key.publicKey.exponent)
        let message = Array("jwks".utf8)
        #expect(jwkKey.isValidRS256Signature(try key.signRS256(message), for: message))
    }

    @Test func pkcs8PEMRoundTrip() throws {
        let key = try Self.key.get()
        let pem = try key.pkcs8PEM()
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        #expect(try RSAPrivateKey(pem: pem).publicKey == key.publicKey)
    }

    @Test func smallKeysAreRefused() {
        #expect(throws: CryptoError.self) { try RSAPrivateKey.generate(bits: 1024) }
    }
}

@Suite(.enabled(if: OpenSSLCLI.isAvailable, "openssl CLI not installed: interop tests skipped"))
struct RSAKeyInteropTests {
    @Test func loadsEveryPEMShapeTheCLIWrites() throws {
        let directory = try makeTemporaryDirectory("rsa")
        defer { removeTemporaryDirectory(directory) }
        try OpenSSLCLI.run(["genrsa", "-out", "pkcs8.pem", "2048"], in: directory)
        try OpenSSLCLI.run(["rsa", "-in", "pkcs8.pem", "-traditional", "-out", "pkcs1.pem"], in: directory)
        try OpenSSLCLI.run(["rsa", "-in", "pkcs8.pem", "-pubout", "-out", "spki.pem"], in: directory)
        try OpenSSLCLI.run(["rsa", "-in", "pkcs8.pem", "-RSAPublicKey_out", "-out", "pkcs1pub.pem"], in: directory)
        func text(_ name: String) throws -> String {
            try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
        }
        #expect(try text("pkcs8.pem").contains("BEGIN PRIVATE KEY"))
        #expect(try text("pkcs1.pem").contains("BEGIN RSA PRIVATE KEY"))
        #expect(try text("pkcs1pub.pem").contains("BEGIN RSA PUBLIC KEY"))

        let fromPKCS8 = try RSAPrivateKey(pem: try text("pkcs8.pem"))
        let fromPKCS1 = try RSAPrivateKey(pem: try text("pkcs1.pem"))
        let spki = try RSAPublicKey(pem: try text("spki.pem"))
        let pkcs1Public = try RSAPublicKey(pem: try text("pkcs1pub.pem"))
        #expect(fromPKCS8.publicKey == spki)
        #expect(fromPKCS1.publicKey == spki)
        #expect(pkcs1Public == spki)

        // The CLI's signature verifies with our key, ours with the CLI.
        let message = Array("cross-check".utf8)
        try Data(message).write(to: directory.appendingPathComponent("message"))
        try OpenSSLCLI.run(["dgst", "-sha256", "-sign", "pkcs8.pem", "-out", "theirs.sig", "message"], in: directory)
        let theirs = [UInt8](try Data(contentsOf: directory.appendingPathComponent("theirs.sig")))
        #expect(spki.isValidRS256Signature(theirs, for: message))
        #expect(try fromPKCS1.signRS256(message) == theirs)
    }

    @Test func smallModulusPEMIsRejected() throws {
        let directory = try makeTemporaryDirectory("rsa-small")
        defer { removeTemporaryDirectory(directory) }
        try OpenSSLCLI.run(["genrsa", "-out", "small.pem", "1024"], in: directory)
        try OpenSSLCLI.run(["rsa", "-in", "small.pem", "-pubout", "-out", "small.pub"], in: directory)
        let privatePEM = try String(contentsOf: directory.appendingPathComponent("small.pem"), encoding: .utf8)
        let publicPEM = try String(contentsOf: directory.appendingPathComponent("small.pub"), encoding: .utf8)
        #expect(throws: CryptoError.self) { try RSAPublicKey(pem: publicPEM) }
        #expect(throws: CryptoError.self) { try RSAPrivateKey(pem: privatePEM) }
    }

    @Test func ecKeysAreRejected() throws {
        let directory = try makeTemporaryDirectory("rsa-ec")
        defer { removeTemporaryDirectory(directory) }
        try OpenSSLCLI.run(["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "ec.pem"], in: directory)
        let ec = try String(contentsOf: directory.appendingPathComponent("ec.pem"), encoding: .utf8)
        let ecPublic = String(decoding: try OpenSSLCLI.run(["ec", "-in", "ec.pem", "-pubout"], in: directory), as: UTF8.self)
        #expect(throws: CryptoError.self) { try RSAPrivateKey(pem: ec) }
        #expect(throws: CryptoError.self) { try RSAPublicKey(pem: ecPublic) }
    }
}
