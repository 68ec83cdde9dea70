import Foundation
import OpenSSLCrypto

/// A small PKI made with the `openssl` CLI at test time, in a temporary directory:
///
///     Root A ── Intermediate (CA, WWDR OID) ──┬── Leaf (receipt-signer OID, OCSP URL)
///                                             ├── Short leaf (valid 1 day)
///                                             └── Leaf ── Not-a-CA child
///     Root B (P-384) ── Other leaf
///
/// Validity starts when the tests run; tests pick explicit times relative to it.
extension TestPKI {
    /// Built on first use; the failure says why when the CLI is missing or failed.
    public static let generated: Result<Generated, Error> = Result { try Generated() }

    /// The PKI `generated` holds, in its own temporary directory.
    public final class Generated: Sendable {
        public static let ocspURL = "http://127.0.0.1:8888/ocsp"
        public static let leafSerialHex = "1A2B3C4D"

        public let directory: URL
        public let rootA: Certificate
        public let intermediate: Certificate
        public let leaf: Certificate
        public let shortLeaf: Certificate
        public let notACAChild: Certificate
        public let rootB: Certificate
        public let otherLeaf: Certificate

        fileprivate init() throws {
            directory = try makeTemporaryDirectory("pki")
            let dir = directory
            try Self.extensions.write(to: dir.appendingPathComponent("ext.cnf"), atomically: true, encoding: .utf8)
            func run(_ arguments: [String]) throws { try OpenSSLCLI.run(arguments, in: dir) }
            func key(_ name: String, curve: String = "prime256v1") throws {
                try run(["ecparam", "-name", curve, "-genkey", "-noout", "-out", "\(name).key"])
            }
            func selfSigned(_ name: String, subject: String) throws {
                try run(["req", "-new", "-key", "\(name).key", "-subj", subject, "-out", "\(name).csr"])
                try run(["x509", "-req", "-in", "\(name).csr", "-key", "\(name).key", "-days", "3650",
                         "-extfile", "ext.cnf", "-extensions", "root", "-set_serial", "1", "-out", "\(name).pem"])
            }
            func issue(_ name: String, subject: String, by issuer: String, section: String, days: Int, serial: String) throws {
                try run(["req", "-new", "-key", "\(name).key", "-subj", subject, "-out", "\(name).csr"])
                try run(["x509", "-req", "-in", "\(name).csr", "-CA", "\(issuer).pem", "-CAkey", "\(issuer).key",
                         "-days", "\(days)", "-extfile", "ext.cnf", "-extensions", section,
                         "-set_serial", serial, "-out", "\(name).pem"])
            }

            try key("rootA")
            try selfSigned("rootA", subject: "/C=US/O=Storekeeper Test/CN=Test Root A")
            try key("intermediate")
            try issue("intermediate", subject: "/C=US/O=Storekeeper Test/CN=Test Intermediate",
                      by: "rootA", section: "intermediate", days: 1825, serial: "2")
            try key("leaf")
            try issue("leaf", subject: "/C=US/O=Storekeeper Test/CN=Test Leaf",
                      by: "intermediate", section: "leaf", days: 365, serial: "0x\(Self.leafSerialHex)")
            try key("shortLeaf")
            try issue("shortLeaf", subject: "/C=US/O=Storekeeper Test/CN=Test Short Leaf",
                      by: "intermediate", section: "leaf", days: 1, serial: "4")
            try key("notACAChild")
            try issue("notACAChild", subject: "/C=US/O=Storekeeper Test/CN=Child Of A Leaf",
                      by: "leaf", section: "leaf", days: 30, serial: "5")
            try key("rootB", curve: "secp384r1")
            try selfSigned("rootB", subject: "/C=US/O=Storekeeper Test/CN=Test Root B")
            try key("otherLeaf")
            try issue("otherLeaf", subject: "/C=US/O=Storekeeper Test/CN=Leaf Of Root B",
                      by: "rootB", section: "leaf", days: 365, serial: "6")

            func load(_ name: String) throws -> Certificate {
                let certificates = try Certificate.load(path: dir.appendingPathComponent("\(name).pem").path)
                guard certificates.count == 1 else { throw OpenSSLCLI.Failure(description: "\(name).pem") }
                return certificates[0]
            }
            rootA = try load("rootA")
            intermediate = try load("intermediate")
            leaf = try load("leaf")
            shortLeaf = try load("shortLeaf")
            notACAChild = try load("notACAChild")
            rootB = try load("rootB")
            otherLeaf = try load("otherLeaf")
        }

        public func path(_ file: String) -> String {
            directory.appendingPathComponent(file).path
        }

        public func text(_ file: String) throws -> String {
            try String(contentsOfFile: path(file), encoding: .utf8)
        }

        private static let extensions = """
            [root]
            basicConstraints = critical, CA:TRUE
            keyUsage = critical, keyCertSign, cRLSign
            subjectKeyIdentifier = hash

            [intermediate]
            basicConstraints = critical, CA:TRUE, pathlen:0
            keyUsage = critical, keyCertSign, cRLSign
            subjectKeyIdentifier = hash
            authorityKeyIdentifier = keyid
            \(TestPKI.wwdrIntermediateOID) = ASN1:NULL

            [leaf]
            basicConstraints = critical, CA:FALSE
            keyUsage = critical, digitalSignature
            subjectKeyIdentifier = hash
            authorityKeyIdentifier = keyid
            authorityInfoAccess = OCSP;URI:\(ocspURL), caIssuers;URI:http://127.0.0.1:8888/intermediate.cer
            \(TestPKI.receiptSignerOID) = ASN1:NULL

            """
    }
}
