import Foundation
import Testing
import OpenSSLCrypto

/// Live answers from `openssl ocsp` on loopback, checked by OCSPResponseVerifier. The
/// responder stamps thisUpdate with the wall clock, so checks happen at "now" or at
/// instants computed from the answer's own dates.
@Suite(.enabled(if: OCSPFixtures.toolsAvailable, "openssl, curl or timeout CLI not installed: OCSP tests skipped"))
struct OCSPResponseVerifierTests {
    static let maximumAge: Duration = .seconds(3_600)

    /// 2026-01-01T00:00:00Z: leaf-revoked's revocation time in index.txt.
    static let revocationTime = Date(timeIntervalSince1970: 1_767_225_600)
    /// CRLReason keyCompromise.
    static let keyCompromise = 1

    struct Fixture {
        let root: Certificate
        let intermediate: Certificate
        let leaf: Certificate
        let trustStore: TrustStore

        init() throws {
            root = try OCSPFixtures.certificate("root")
            intermediate = try OCSPFixtures.certificate("intermediate")
            leaf = try OCSPFixtures.certificate("leaf")
            trustStore = try TrustStore(roots: [root])
        }

        func check(
            _ response: [UInt8], for certificate: Certificate? = nil, issuer: Certificate? = nil,
            at time: Date = Date(), maximumAge: Duration = OCSPResponseVerifierTests.maximumAge,
            trustStore: TrustStore? = nil, request: OCSPRequest? = nil
        ) throws(OCSPResponseError) -> OCSPResult {
            try OCSPResponseVerifier.check(
                response: response, for: certificate ?? leaf, issuer: issuer ?? intermediate,
                trustStore: trustStore ?? self.trustStore, at: time, maximumAge: maximumAge, request: request)
        }
    }

    /// Runs `body` and returns the OCSPResponseError it threw, or nil.
    static func failure(_ body: () throws(OCSPResponseError) -> OCSPResult) -> OCSPResponseError? {
        do {
            _ = try body()
            return nil
        } catch {
            return error
        }
    }

    // MARK: - Answers

    @Test func theGoodLeafIsGoodForOneDay() throws {
        let fixture = try Fixture()
        let responder = try OCSPResponder()
        defer { responder.stop() }
        let before = Date()
        let (_, response) = try responder.ask(about: fixture.leaf, issuer: fixture.intermediate)
        let result = try fixture.check(response)

        #expect(result.status == .good)
        #expect(abs(result.thisUpdate.timeIntervalSince(before)) < 60, "thisUpdate \(result.thisUpdate)")
        let nextUpdate = try #require(result.nextUpdate)
        #expect(abs(nextUpdate.timeIntervalSince(result.thisUpdate) - 86_400) <= 2, "nextUpdate \(nextUpdate)")
    }

    @Test func theRevokedLeafIsRevokedAtItsRevocationTime() throws {
        let fixture = try Fixture()
        let revokedLeaf = try OCSPFixtures.certificate("leaf-revoked")
        let responder = try OCSPResponder()
        defer { responder.stop() }
        let (_, response) = try responder.ask(about: revokedLeaf, issuer: fixture.intermediate)
        let result = try fixture.check(response, for: revokedLeaf)

        #expect(result.status == .revoked(at: Self.revocationTime, reason: Self.keyCompromise))
        #expect(result.nextUpdate != nil)
    }

    @Test func theIntermediateIsGoodAccordingToTheRootsResponder() throws {
        let fixture = try Fixture()
        let responder = try OCSPResponder(.init(index: "root-index.txt", ca: "root", signer: "root-ocsp-responder"))
        defer { responder.stop() }
        let (_, response) = try responder.ask(about: fixture.intermediate, issuer: fixture.root)
        let result = try fixture.check(response, for: fixture.intermediate, issuer: fixture.root)
        #expect(result.status == .good)
    }

    @Test func aCertificateMissingFromTheIndexIsUnknown() throws {
        let fixture = try Fixture()
        let notInIndex = try OCSPFixtures.certificate("intermediate-not-ca")
        let responder = try OCSPResponder(.init(index: "root-index.txt", ca: "root", signer: "root-ocsp-responder"))
        defer { responder.stop() }
        let (_, response) = try responder.ask(about: notInIndex, issuer: fixture.root)
        let result = try fixture.check(response, for: notInIndex, issuer: fixture.root)
        #expect(result.status == .unknown)
    }

    @Test func theIssuerMaySignItsAnswersItself() throws {
        let fixture = try Fixture()
        let responder = try OCSPResponder(.init(signer: "intermediate"))
        defer { responder.stop() }
        let (_, response) = try responder.ask(about: fixture.leaf, issuer: fixture.intermediate)
        #expect(try fixture.check(response).status == .good)
    }

    @Test func oneAnswerCanBeCheckedFromManyTasksAtOnce() async throws {
        let fixture = try Fixture()
        let responder = try OCSPResponder()
        defer { responder.stop() }
        let (_, response) = try responder.ask(about: fixture.leaf, issuer: fixture.intermediate)
        let time = Date()
        let goodCount = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var good = 0
                    for _ in 0..<20 where try fixture.check(response, at: time).status == .good {
                        good += 1
                    }
                    return good
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(goodCount == 160)
    }

    // MARK: - Who signed it

    @Test func aResponderIssuedUnderAnotherRootIsRefused() throws {
        // Same names as the real responder and intermediate; other keys.
        let fixture = try Fixture()
        let responder = try OCSPResponder(.init(signer: "ocsp-responder-other-root", otherCertificates: ["other-intermediate"]))
        defer { responder.stop() }
        let (_, response) = try responder.ask(about: fixture.leaf, issuer: fixture.intermediate)
        let error = Self.failure { () throws(OCSPResponseError) in try fixture.check(response) }
        #expect(error?.kind == .signatureInvalid, "\(String(describing: error))")
        #expect(error?.message.isEmpty == false)
        #expect(error?.isRetryable == false)
    }

    @Test func aResponderDelegatedBySomeoneElseUnderTheSameRootIsRefused() throws {
        // The intermediate's responder answering for the intermediate itself (the root's
        // business), with its chain in the response so it verifies up to the root: the
        // signature and the chain are fine, the authority is not.
        let fixture = try Fixture()
        let responder = try OCSPResponder(.init(
            index: "root-index.txt", ca: "root", signer: "ocsp-responder", otherCertificates: ["intermediate"]))
        defer { responder.stop() }
        let (_, response) = try responder.ask(about: fixture.intermediate, issuer: fixture.root)
        let error = Self.failure { () throws(OCSPResponseError) in
            try fixture.check(response, for: fixture.intermediate, issuer: fixture.root)
        }
        #expect(error?.kind == .signatureInvalid, "\(String(describing: error))")
        #expect(error?.message.contains("delegated") == true, "\(String(describing: error))")
    }

    @Test func aTrustStoreWithoutTheRootRefusesTheAnswer() throws {
        let fixture = try Fixture()
        let responder = try OCSPResponder()
        defer { responder.stop() }
        let (_, response) = try responder.ask(about: fixture.leaf, issuer: fixture.intermediate)
        let otherRoots = try TrustStore(roots: [OCSPFixtures.certificate("other-root")])
        let error = Self.failure { () throws(OCSPResponseError) in try fixture.check(response, trustStore: otherRoots) }
        #expect(error?.kind == .signatureInvalid, "\(String(describing: error))")
    }

    @Test func theSignersChainIsJudgedAtTheCheckTime() throws {
        // At 2045 the responder and the intermediate (valid until 2044) have expired; the
        // wall clock would say they are fine. The chain check comes before freshness.
        let fixture = try Fixture()
        let responder = try OCSPResponder()
        defer { responder.stop() }
        let (_, response) = try responder.ask(about: fixture.leaf, issuer: fixture.intermediate)
        let in2045 = Date(timeIntervalSince1970: 2_366_841_600)
        let error = Self.failure { () throws(OCSPResponseError) in try fixture.check(response, at: in2045) }
        #expect(error?.kind == .signatureInvalid, "\(String(describing: error))")
        #expect(error?.message.contains("expired") == true, "\(String(describing: error))")
    }

    // MARK: - What it is about

    @Test func anAnswerAboutAnotherCertificateIsNotAnAnswer() throws {
        let fixture = try Fixture()
        let responder = try OCSPResponder()
        defer { responder.stop() }
        let (_, response) = try responder.ask(about: OCSPFixtures.certificate("leaf-revoked"), issuer: fixture.intermediate)
        let error = Self.failure { () throws(OCSPResponseError) in try fixture.check(response) }
        #expect(error?.kind == .certificateNotInResponse, "\(String(describing: error))")
    }

    @Test func anEchoedNonceMustBeOurs() throws {
        let fixture = try Fixture()
        let responder = try OCSPResponder()
        defer { responder.stop() }
        let (request, response) = try responder.ask(about: fixture.leaf, issuer: fixture.intermediate, nonce: true)

        #expect(try fixture.check(response, request: request).status == .good)
        // Without the request (a cached answer) there is nothing to compare.
        #expect(try fixture.check(response).status == .good)
        // Replayed to another request that asked with its own nonce.
        let other = try OCSPRequest.make(for: fixture.leaf, issuer: fixture.intermediate, nonce: true)
        let error = Self.failure { () throws(OCSPResponseError) in try fixture.check(response, request: other) }
        #expect(error?.kind == .nonceMismatch, "\(String(describing: error))")
        // A request without a nonce does not care.
        let plain = try OCSPRequest.make(for: fixture.leaf, issuer: fixture.intermediate)
        #expect(try fixture.check(response, request: plain).status == .good)
    }

    // MARK: - When

    @Test func anAnswerIsStaleAfterItsNextUpdateAndBeforeItsThisUpdate() throws {
        let fixture = try Fixture()
        let responder = try OCSPResponder()
        defer { responder.stop() }
        let (_, response) = try responder.ask(about: fixture.leaf, issuer: fixture.intermediate)
        let fresh = try fixture.check(response)
        let nextUpdate = try #require(fresh.nextUpdate)

        // Within the clock-skew allowance on both sides...
        #expect(try fixture.check(response, at: nextUpdate.addingTimeInterval(240)).status == .good)
        #expect(try fixture.check(response, at: fresh.thisUpdate.addingTimeInterval(-240)).status == .good)
        // ...and outside it.
        let late = Self.failure { () throws(OCSPResponseError) in try fixture.check(response, at: nextUpdate.addingTimeInterval(360)) }
        #expect(late?.kind == .stale, "\(String(describing: late))")
        let early = Self.failure { () throws(OCSPResponseError) in try fixture.check(response, at: fresh.thisUpdate.addingTimeInterval(-360)) }
        #expect(early?.kind == .stale, "\(String(describing: early))")
        // With a nextUpdate, the maximum age does not apply.
        #expect(try fixture.check(response, at: fresh.thisUpdate.addingTimeInterval(7_200), maximumAge: .seconds(60)).status == .good)
    }

    @Test func withoutNextUpdateTheMaximumAgeBoundsTheAnswer() throws {
        let fixture = try Fixture()
        let responder = try OCSPResponder(.init(days: nil))
        defer { responder.stop() }
        let (_, response) = try responder.ask(about: fixture.leaf, issuer: fixture.intermediate)
        let fresh = try fixture.check(response)
        #expect(fresh.nextUpdate == nil)

        let anHourLater = fresh.thisUpdate.addingTimeInterval(3_600)
        #expect(try fixture.check(response, at: anHourLater, maximumAge: .seconds(7_200)).status == .good)
        let error = Self.failure { () throws(OCSPResponseError) in
            try fixture.check(response, at: anHourLater, maximumAge: .seconds(1_800))
        }
        #expect(error?.kind == .stale, "\(String(describing: error))")
    }

    // MARK: - Bytes that are not an answer

    @Test func garbageIsMalformed() throws {
        let fixture = try Fixture()
        for bytes: [UInt8] in [[], Array("not an OCSP response".utf8), [0x30, 0x03, 0x0A, 0x01]] {
            let error = Self.failure { () throws(OCSPResponseError) in try fixture.check(bytes) }
            #expect(error?.kind == .malformed, "\(bytes): \(String(describing: error))")
        }
        // A good answer with a byte appended is not the same answer.
        let responder = try OCSPResponder()
        defer { responder.stop() }
        let (_, response) = try responder.ask(about: fixture.leaf, issuer: fixture.intermediate)
        let error = Self.failure { () throws(OCSPResponseError) in try fixture.check(response + [0]) }
        #expect(error?.kind == .malformed, "\(String(describing: error))")
    }

    @Test func aSuccessfulStatusWithoutAnAnswerIsMalformed() throws {
        // OCSPResponse { responseStatus successful } and no responseBytes.
        let fixture = try Fixture()
        let error = Self.failure { () throws(OCSPResponseError) in try fixture.check([0x30, 0x03, 0x0A, 0x01, 0x00]) }
        #expect(error?.kind == .malformed, "\(String(describing: error))")
    }

    @Test(arguments: [
        (1, OCSPResponseStatus.malformedRequest, false),
        (2, .internalError, true),
        (3, .tryLater, true),
        (6, .unauthorized, false),
        (9, OCSPResponseStatus(rawValue: 9), false),
    ])
    func anUnsuccessfulStatusIsReportedByName(raw: UInt8, status: OCSPResponseStatus, retryable: Bool) throws {
        // The whole of an unsuccessful response: OCSPResponse { responseStatus }. These are
        // the bytes `openssl ocsp` answers a malformed request with (and then exits), which
        // is why they are written out rather than asked for.
        let fixture = try Fixture()
        let error = Self.failure { () throws(OCSPResponseError) in try fixture.check([0x30, 0x03, 0x0A, 0x01, raw]) }
        #expect(error?.kind == .unsuccessful(status), "\(String(describing: error))")
        #expect(error?.isRetryable == retryable)
        #expect(error?.message.contains(status.name) == true, "\(String(describing: error))")
    }

    @Test func statusNamesAreOpenSSLs() {
        #expect(OCSPResponseStatus.successful.name == "successful")
        #expect(OCSPResponseStatus.tryLater.name == "trylater")
        #expect(OCSPResponseStatus.unauthorized.name == "unauthorized")
        #expect(OCSPResponseStatus(rawValue: 4).name == "(UNKNOWN)")
    }
}
