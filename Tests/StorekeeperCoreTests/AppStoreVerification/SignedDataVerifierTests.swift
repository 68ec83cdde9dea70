import Foundation
import OpenSSLCrypto
import StorekeeperCore
import Testing

@Suite("SignedDataVerifier: Apple's order and codes")
struct SignedDataVerifierTests {
    let now = TestPKI.fixedTime

    private func expectRejection(_ code: VerificationErrorKind, _ jws: String, as type: SignedDataType? = nil,
                                 verifier: SignedDataVerifier? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let verifier = try verifier ?? TestPKI.verifier()
        do {
            let verified = try verifier.verify(jws, as: type, now: now)
            Issue.record("expected \(code.rawValue), got valid \(verified.type)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.kind == code, "reason: \(error.reason)", sourceLocation: sourceLocation)
        }
    }

    @Test func acceptsATransactionAndKeepsThePayloadBytes() throws {
        let jws = try TestPKI.sign(TestPKI.transaction())
        let verified = try TestPKI.verifier().verify(jws, now: now)
        #expect(verified.type == .transaction)
        #expect(verified.environment == .sandbox)
        #expect(verified.signedDate == TestPKI.fixedTime)
        #expect(!verified.signatureSkipped)
        let parts = jws.split(separator: ".")
        #expect(Base64URL.decode(parts[1]) == verified.payload)
    }

    @Test func acceptsANotificationAndVerifiesItsNestedJWS() throws {
        let jws = try TestPKI.sign(TestPKI.notification())
        let verified = try TestPKI.verifier().verify(jws, now: now)
        #expect(verified.type == .notification)
        let transaction = try #require(verified.transactionInfo)
        let renewal = try #require(verified.renewalInfo)
        let decodedTransaction = try JSONSerialization.jsonObject(with: Data(transaction)) as? [String: Any]
        #expect(decodedTransaction?["productId"] as? String == "com.example.pro.monthly")
        let decodedRenewal = try JSONSerialization.jsonObject(with: Data(renewal)) as? [String: Any]
        #expect(decodedRenewal?["autoRenewStatus"] as? Int == 1)
    }

    @Test func infersEachType() throws {
        let verifier = try TestPKI.verifier()
        #expect(try verifier.verify(TestPKI.sign(TestPKI.renewalInfo()), now: now).type == .renewalInfo)
        #expect(try verifier.verify(TestPKI.sign(TestPKI.transaction()), now: now).type == .transaction)
        let appTransaction: [String: Any] = [
            "receiptType": "Sandbox", "bundleId": TestPKI.bundleId, "appAppleId": TestPKI.appAppleId,
            "applicationVersion": "1", "receiptCreationDate": TestPKI.fixedTimeMilliseconds,
            "originalPurchaseDate": TestPKI.fixedTimeMilliseconds,
        ]
        let verified = try verifier.verify(TestPKI.sign(appTransaction), now: now)
        #expect(verified.type == .appTransaction)
        #expect(verified.environment == .sandbox)
    }

    // MARK: 1. shape

    @Test(arguments: ["", "a.b", "a.b.c.d", "..", "e30.e30.", "!!.e30.AA", "e30.e30.AA=", "e30=.e30.AA"])
    func malformedCompactJWSIsInvalidFormat(_ text: String) throws {
        try expectRejection(.invalidJWTFormat, text)
    }

    @Test func otherAlgorithmsAreInvalidFormat() throws {
        for alg in ["RS256", "none", "HS256", "ES384"] {
            try expectRejection(.invalidJWTFormat, TestPKI.sign(TestPKI.transaction(), alg: alg))
        }
    }

    @Test func aChainOfTwoIsInvalidFormat() throws {
        try expectRejection(.invalidJWTFormat, TestPKI.sign(TestPKI.transaction(), chain: ["leaf", "intermediate"]))
        try expectRejection(.invalidJWTFormat, TestPKI.sign(TestPKI.transaction(), chain: ["leaf", "intermediate", "root", "root"]))
    }

    @Test func aPayloadThatIsNotJSONIsInvalidFormat() throws {
        let signer = JWSSigner(key: try TestPKI.key("leaf"),
                               header: JOSEHeader(alg: "ES256", x5c: try TestPKI.x5c(["leaf", "intermediate", "root"])))
        try expectRejection(.invalidJWTFormat, signer.sign(payload: Array("not json".utf8)))
        try expectRejection(.invalidJWTFormat, signer.sign(payload: Array("[1,2]".utf8)))
    }

    // MARK: 2. chain

    @Test func swappedLeafAndIntermediateIsInvalidCertificate() throws {
        try expectRejection(.invalidCertificate, TestPKI.sign(TestPKI.transaction(), chain: ["intermediate", "leaf", "root"]))
    }

    @Test(arguments: [
        ("leaf-expired", ["leaf-expired", "intermediate", "root"]),
        ("leaf-no-oid", ["leaf-no-oid", "intermediate", "root"]),
        ("leaf-under-intermediate-no-oid", ["leaf-under-intermediate-no-oid", "intermediate-no-oid", "root"]),
        ("leaf-under-intermediate-not-ca", ["leaf-under-intermediate-not-ca", "intermediate-not-ca", "root"]),
        ("leaf-other-root", ["leaf-other-root", "other-intermediate", "other-root"]),
        // A foreign chain that sends our root as x5c[2]: x5c[2] is never trusted by itself.
        ("leaf-other-root", ["leaf-other-root", "other-intermediate", "root"]),
    ])
    func badChainsAreInvalidCertificate(key: String, chain: [String]) throws {
        try expectRejection(.invalidCertificate, TestPKI.sign(TestPKI.transaction(), key: key, chain: chain))
    }

    @Test func theRootInX5cIsNotWhatIsTrusted() throws {
        // A good leaf and intermediate with a foreign certificate in the root slot still chain
        // to the configured root, which is the one that counts.
        let jws = try TestPKI.sign(TestPKI.transaction(), chain: ["leaf", "intermediate", "other-root"])
        #expect(try TestPKI.verifier().verify(jws, now: now).type == .transaction)
    }

    @Test func garbageInX5cIsInvalidCertificate() throws {
        let header = JOSEHeader(alg: "ES256", x5c: ["bm90IGEgY2VydA==", "bm90IGEgY2VydA==", "bm90IGEgY2VydA=="])
        let jws = try JWSSigner(key: TestPKI.key("leaf"), header: header).sign(payload: Array(#"{"transactionId":"1"}"#.utf8))
        try expectRejection(.invalidCertificate, jws)
    }

    @Test func theChainIsValidatedAtSignedDateNotNow() throws {
        // Signed in 2024 with the leaf that expired in 2025: valid then, so valid now.
        let signedIn2024: Int64 = 1_719_792_000_000 // 2024-07-01
        let jws = try TestPKI.sign(TestPKI.transaction(signedDate: signedIn2024), key: "leaf-expired",
                                   chain: ["leaf-expired", "intermediate", "root"])
        #expect(try TestPKI.verifier().verify(jws, now: now).type == .transaction)
        // The good leaf did not exist yet in 2024.
        try expectRejection(.invalidCertificate, TestPKI.sign(TestPKI.transaction(signedDate: signedIn2024)))
    }

    @Test func aCachedChainIsNotReusedOutsideItsValidity() throws {
        let verifier = try TestPKI.verifier()
        _ = try verifier.verify(TestPKI.sign(TestPKI.transaction()), now: now)
        let after2030: Int64 = 1_924_992_000_000 // 2031-01-01, after the leaf expires
        try expectRejection(.invalidCertificate, TestPKI.sign(TestPKI.transaction(signedDate: after2030)), verifier: verifier)
    }

    // MARK: 3. signature

    @Test func aTamperedPayloadIsVerificationFailure() throws {
        let good = try TestPKI.sign(TestPKI.transaction()).split(separator: ".")
        var changed = TestPKI.transaction()
        changed["productId"] = "com.example.pro.yearly"
        let other = try TestPKI.sign(changed).split(separator: ".")
        try expectRejection(.verificationFailure, [good[0], other[1], good[2]].joined(separator: "."))
    }

    @Test func aTamperedSignatureIsVerificationFailure() throws {
        let parts = try TestPKI.sign(TestPKI.transaction()).split(separator: ".")
        var signature = try #require(Base64URL.decode(parts[2]))
        signature[10] ^= 0x01
        try expectRejection(.verificationFailure, [String(parts[0]), String(parts[1]), Base64URL.encode(signature)].joined(separator: "."))
        try expectRejection(.verificationFailure, [String(parts[0]), String(parts[1]), Base64URL.encode(signature.prefix(63))].joined(separator: "."))
    }

    @Test func aKeyThatIsNotTheLeafsIsVerificationFailure() throws {
        try expectRejection(.verificationFailure, TestPKI.sign(TestPKI.transaction(), key: "leaf-expired"))
    }

    @Test func aNestedTransactionWithABadSignatureFailsTheNotification() throws {
        let parts = try TestPKI.sign(TestPKI.transaction()).split(separator: ".")
        let forged = [String(parts[0]), String(parts[1]), Base64URL.encode([UInt8](repeating: 7, count: 64))].joined(separator: ".")
        try expectRejection(.verificationFailure, TestPKI.sign(TestPKI.notification(transactionJWS: forged)))
    }

    // MARK: 4. claims

    @Test func anotherAppsDataIsInvalidAppIdentifier() throws {
        try expectRejection(.invalidAppIdentifier, TestPKI.sign(TestPKI.transaction(bundleId: "com.example.other")))
        try expectRejection(.invalidAppIdentifier, TestPKI.sign(TestPKI.notification(bundleId: "com.example.other")))
    }

    @Test func productionNotificationsMustCarryThisAppAppleId() throws {
        try expectRejection(.invalidAppIdentifier, TestPKI.sign(TestPKI.notification(environment: "Production", appAppleId: 42)))
        try expectRejection(.invalidAppIdentifier, TestPKI.sign(TestPKI.notification(environment: "Production", appAppleId: nil)))
        #expect(try TestPKI.verifier().verify(TestPKI.sign(TestPKI.notification(environment: "Production")), now: now).environment == .production)
    }

    @Test func sandboxNotificationsMayLackAppAppleId() throws {
        #expect(try TestPKI.verifier().verify(TestPKI.sign(TestPKI.notification(appAppleId: nil)), now: now).type == .notification)
    }

    @Test func anEnvironmentThatIsNotAcceptedIsInvalidEnvironment() throws {
        let productionOnly = try TestPKI.verifier(environments: [.production])
        try expectRejection(.invalidEnvironment, TestPKI.sign(TestPKI.transaction(environment: "Sandbox")), verifier: productionOnly)
        try expectRejection(.invalidEnvironment, TestPKI.sign(TestPKI.renewalInfo(environment: "Sandbox")), verifier: productionOnly)
        try expectRejection(.invalidEnvironment, TestPKI.sign(TestPKI.notification()), verifier: productionOnly)
    }

    @Test func xcodeDataSkipsTheSignatureOnlyWhenXcodeIsAccepted() throws {
        let parts = try TestPKI.sign(TestPKI.transaction(environment: "Xcode")).split(separator: ".")
        let unsigned = [String(parts[0]), String(parts[1]), Base64URL.encode([UInt8](repeating: 1, count: 64))].joined(separator: ".")
        let verified = try TestPKI.verifier(environments: [.xcode]).verify(unsigned, now: now)
        #expect(verified.signatureSkipped)
        #expect(verified.environment == .xcode)
        // Not accepted: it is checked like any other data, and the forged signature fails.
        try expectRejection(.verificationFailure, unsigned)
        // Properly signed but Xcode not accepted: the environment check refuses it.
        try expectRejection(.invalidEnvironment, TestPKI.sign(TestPKI.transaction(environment: "Xcode")))
    }

    @Test func errorsCompareByCode() {
        #expect(VerificationError(.invalidCertificate, "a") == VerificationError(.invalidCertificate, "b"))
        #expect(VerificationError(.retryableVerificationFailure, "").isRetryable)
        #expect(!VerificationError(.verificationFailure, "").isRetryable)
    }
}

@Suite("SignedDataVerifier: environment before App Apple ID when Production is not accepted")
struct SignedDataVerifierEnvironmentOrderTests {
    @Test func productionDataOnASandboxOnlyServerIsInvalidEnvironment() throws {
        let sandboxOnly = SignedDataVerifier(configuration: .init(
            trustAnchors: TrustAnchors([try TestPKI.certificate("root")]), bundleId: TestPKI.bundleId,
            appAppleId: nil, acceptedEnvironments: [.sandbox]))
        let jws = try TestPKI.sign(TestPKI.notification(environment: "Production"))
        #expect(throws: VerificationError(.invalidEnvironment, "")) {
            try sandboxOnly.verify(jws, now: TestPKI.fixedTime)
        }
    }
}

@Suite("SignedDataVerifier: trust anchors")
struct TrustAnchorsTests {
    struct Unreadable: Error {}

    @Test func rootsThatCannotBeLoadedAreRetryableNotTheDatasFault() throws {
        let verifier = SignedDataVerifier(configuration: .init(
            trustAnchors: TrustAnchors(load: { throw Unreadable() }), bundleId: TestPKI.bundleId,
            appAppleId: TestPKI.appAppleId, acceptedEnvironments: [.sandbox]))
        do {
            _ = try verifier.verify(TestPKI.sign(TestPKI.transaction()), now: TestPKI.fixedTime)
            Issue.record("expected a retryable failure")
        } catch let error as VerificationError {
            #expect(error.kind == .retryableVerificationFailure)
            #expect(error.isRetryable)
        }
    }

    @Test func rootsAreNotLoadedForDataRejectedBeforeTheChain() throws {
        nonisolated(unsafe) var loads = 0
        let verifier = SignedDataVerifier(configuration: .init(
            trustAnchors: TrustAnchors(load: { loads += 1; return [try TestPKI.certificate("root")] }),
            bundleId: TestPKI.bundleId, appAppleId: TestPKI.appAppleId, acceptedEnvironments: [.sandbox]))
        _ = try? verifier.verify("not.a.jws", now: TestPKI.fixedTime)
        #expect(loads == 0)
        _ = try verifier.verify(TestPKI.sign(TestPKI.transaction()), now: TestPKI.fixedTime)
        _ = try verifier.verify(TestPKI.sign(TestPKI.transaction()), now: TestPKI.fixedTime)
        #expect(loads == 1)
    }
}

@Suite("SignedDataVerifier: a chain cached in the store is trusted only under the roots that proved it")
struct SignedDataVerifierChainCacheTests {
    func verifier(roots: [String], store: MemoryStore) throws -> SignedDataVerifier {
        SignedDataVerifier(
            configuration: .init(trustAnchors: TrustAnchors(try roots.map(TestPKI.certificate)), bundleId: TestPKI.bundleId,
                                 appAppleId: TestPKI.appAppleId, acceptedEnvironments: [.sandbox]),
            chainStore: store)
    }

    @Test func anotherRootConfigurationProvesTheChainAgain() throws {
        let store = MemoryStore()
        let jws = try TestPKI.sign(TestPKI.transaction())
        _ = try verifier(roots: ["root"], store: store).verify(jws, now: TestPKI.fixedTime)
        #expect(store.keys.contains { $0.hasPrefix("appstore:chain:") }, "the proven chain is cached")
        // A process whose configuration no longer trusts that root finds nothing in the cache.
        #expect(throws: VerificationError(.invalidCertificate, "")) {
            try verifier(roots: ["other-root"], store: store).verify(jws, now: TestPKI.fixedTime)
        }
        // Under the first configuration the cache still serves.
        _ = try verifier(roots: ["root"], store: store).verify(jws, now: TestPKI.fixedTime)
    }
}
