import Foundation
import Testing
import OpenSSLCrypto

@Suite(.enabled(if: OpenSSLCLI.isAvailable, "openssl CLI not installed: chain tests skipped"))
struct TrustStoreTests {
    /// An instant inside every test certificate's validity, never "now".
    static func validTime(_ pki: TestPKI.Generated) -> Date { pki.leaf.notBefore.addingTimeInterval(3_600) }

    @Test func validChainIsReturnedLeafToRoot() throws {
        let pki = try TestPKI.generated.get()
        let store = try TrustStore(roots: [pki.rootB, pki.rootA])
        let chain = try store.verifyChain(leaf: pki.leaf, intermediates: [pki.intermediate], at: Self.validTime(pki))
        #expect(chain == [pki.leaf, pki.intermediate, pki.rootA])
        // The very objects passed in come back.
        #expect(chain.first === pki.leaf)
        #expect(chain.last === pki.rootA)
    }

    @Test func extraOrUnorderedIntermediatesAreFine() throws {
        let pki = try TestPKI.generated.get()
        let store = try TrustStore(roots: [pki.rootA])
        let chain = try store.verifyChain(
            leaf: pki.leaf, intermediates: [pki.rootB, pki.otherLeaf, pki.intermediate], at: Self.validTime(pki))
        #expect(chain == [pki.leaf, pki.intermediate, pki.rootA])
    }

    @Test func missingIntermediateFails() throws {
        let pki = try TestPKI.generated.get()
        let store = try TrustStore(roots: [pki.rootA])
        let error = #expect(throws: CertificateChainError.self) {
            try store.verifyChain(leaf: pki.leaf, intermediates: [], at: Self.validTime(pki))
        }
        #expect(error?.kind == .untrusted)
        #expect(error?.depth == 0)
        #expect(error?.message.isEmpty == false)
    }

    @Test func leafFromAnotherRootFails() throws {
        let pki = try TestPKI.generated.get()
        let store = try TrustStore(roots: [pki.rootA])
        let error = #expect(throws: CertificateChainError.self) {
            try store.verifyChain(leaf: pki.otherLeaf, intermediates: [pki.intermediate, pki.rootB], at: Self.validTime(pki))
        }
        #expect(error?.kind == .untrusted, "\(String(describing: error))")
    }

    @Test func anIntermediateIsNotATrustAnchor() throws {
        // Partial chains are off: trusting only the intermediate verifies nothing.
        let pki = try TestPKI.generated.get()
        let store = try TrustStore(roots: [pki.intermediate])
        let error = #expect(throws: CertificateChainError.self) {
            try store.verifyChain(leaf: pki.leaf, intermediates: [], at: Self.validTime(pki))
        }
        #expect(error?.kind == .untrusted, "\(String(describing: error))")
    }

    @Test func validityIsJudgedAtTheGivenTimeNotTheClock() throws {
        let pki = try TestPKI.generated.get()
        let store = try TrustStore(roots: [pki.rootA])
        let leaf = pki.shortLeaf

        // Valid at its start...
        _ = try store.verifyChain(leaf: leaf, intermediates: [pki.intermediate], at: leaf.notBefore.addingTimeInterval(60))

        // ...expired a second after its end, though the wall clock says it is still fine.
        let expired = #expect(throws: CertificateChainError.self) {
            try store.verifyChain(leaf: leaf, intermediates: [pki.intermediate], at: leaf.notAfter.addingTimeInterval(1))
        }
        #expect(expired?.kind == .expired)
        #expect(expired?.depth == 0)

        // ...and not yet valid before its start.
        let early = #expect(throws: CertificateChainError.self) {
            try store.verifyChain(leaf: leaf, intermediates: [pki.intermediate], at: leaf.notBefore.addingTimeInterval(-86_400))
        }
        #expect(early?.kind == .notYetValid)

        // A long-lived leaf is fine on the day the short one has expired.
        _ = try store.verifyChain(leaf: pki.leaf, intermediates: [pki.intermediate], at: leaf.notAfter.addingTimeInterval(1))
    }

    @Test func anIssuerThatIsNotACAFails() throws {
        let pki = try TestPKI.generated.get()
        let store = try TrustStore(roots: [pki.rootA])
        let error = #expect(throws: CertificateChainError.self) {
            try store.verifyChain(leaf: pki.notACAChild, intermediates: [pki.leaf, pki.intermediate], at: Self.validTime(pki))
        }
        #expect(error?.kind == .invalidIssuer, "\(String(describing: error))")
        #expect(error?.depth == 1)
    }

    @Test func unrepresentableTimesAndEmptyRootsAreErrors() throws {
        let pki = try TestPKI.generated.get()
        #expect(throws: CryptoError.self) { try TrustStore(roots: []) }
        let store = try TrustStore(roots: [pki.rootA])
        #expect(throws: CryptoError.self) {
            try store.verifyChain(leaf: pki.leaf, intermediates: [pki.intermediate], at: Date(timeIntervalSince1970: .infinity))
        }
    }

    @Test func sharedAcrossTasks() async throws {
        let pki = try TestPKI.generated.get()
        let store = try TrustStore(roots: [pki.rootA])
        let time = Self.validTime(pki)
        let lengths = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var total = 0
                    for _ in 0..<20 {
                        total += try store.verifyChain(leaf: pki.leaf, intermediates: [pki.intermediate], at: time).count
                    }
                    return total
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(lengths == Array(repeating: 60, count: 8))
    }
}
