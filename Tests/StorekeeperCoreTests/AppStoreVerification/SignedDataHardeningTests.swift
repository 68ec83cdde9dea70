import Foundation
import OpenSSLCrypto
import StorekeeperCore
import Testing

/// What real Apple data and a determined attacker broke: Xcode's own signed data, appData
/// notifications, nested JWS of the wrong kind or environment, payloads that two readers
/// could read differently, and unsigned data on the notification path.
@Suite("SignedDataVerifier: Apple's Xcode data, appData, nested kinds, strict payloads")
struct SignedDataHardeningTests {
    let now = TestPKI.fixedTime

    private func rejection(_ jws: String, as type: SignedDataType? = nil, verifier: SignedDataVerifier,
                           unsignedData: SignedDataVerifier.UnsignedData = .acceptedWhenConfigured) throws -> VerificationError {
        do {
            let verified = try verifier.verify(jws, as: type, now: now, unsignedData: unsignedData)
            Issue.record("expected a rejection, got valid \(verified.type)")
            return VerificationError(.invalidJWTFormat, "accepted")
        } catch {
            return error
        }
    }

    private func object(_ bytes: [UInt8]?) throws -> [String: Any] {
        let bytes = try #require(bytes)
        return try #require(JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    // MARK: StoreKit Testing in Xcode (Apple's own resources)

    @Test(arguments: [("transaction", SignedDataType.transaction), ("renewal-info", .renewalInfo),
                      ("app-transaction", .appTransaction)])
    func applesXcodeDataIsDecodedWhenXcodeIsAccepted(_ name: String, _ type: SignedDataType) throws {
        let jws = try XcodeFixtures.jws(name)
        let verified = try XcodeFixtures.verifier(environments: [.xcode]).verify(jws, now: now)
        #expect(verified.type == type)
        #expect(verified.environment == .xcode)
        #expect(verified.signatureSkipped)
        // Fractional milliseconds stay as Xcode wrote them.
        let text = String(decoding: verified.payload, as: UTF8.self)
        switch type {
        case .transaction: #expect(text.contains("\"signedDate\":1697679936056.485"), "\(text)")
        case .renewalInfo: #expect(text.contains("\"renewalDate\":1700358336049.7297"), "\(text)")
        default: #expect(text.contains("\"receiptCreationDate\":1697680122257.447"), "\(text)")
        }
        // Named explicitly too.
        #expect(try XcodeFixtures.verifier(environments: [.xcode]).verify(jws, as: type, now: now).type == type)
    }

    @Test func applesXcodeTransactionDecodesIntoTheModelAsApplesLibraryReadsIt() throws {
        let verified = try XcodeFixtures.verifier(environments: [.xcode]).verify(XcodeFixtures.jws("transaction"), now: now)
        let transaction = try verified.decode(JWSTransactionDecodedPayload.self)
        // The values Apple's own test of this resource expects (test_xcode_signed_data.py).
        #expect(transaction.purchaseDate == 1_697_679_936_049)
        #expect(transaction.expiresDate == 1_700_358_336_049)
        #expect(transaction.signedDate == 1_697_679_936_056)
        #expect(transaction.productId == "pass.premium")
        #expect(transaction.rawEnvironment == "Xcode")
        let renewal = try XcodeFixtures.verifier(environments: [.xcode]).verify(XcodeFixtures.jws("renewal-info"), now: now)
            .decode(JWSRenewalInfoDecodedPayload.self)
        #expect(renewal.renewalDate == 1_700_358_336_049)
        #expect(renewal.autoRenewProductId == "pass.premium")
    }

    @Test(arguments: ["transaction", "renewal-info", "app-transaction"])
    func applesXcodeDataIsRefusedWhenXcodeIsNotAccepted(_ name: String) throws {
        let jws = try XcodeFixtures.jws(name)
        let error = try rejection(jws, verifier: XcodeFixtures.verifier(environments: [.production, .sandbox]))
        #expect(error.kind == .invalidJWTFormat, "\(error.reason)")
        // Where only signed data is taken (the webhook), accepting Xcode changes nothing.
        let refused = try rejection(jws, verifier: XcodeFixtures.verifier(environments: [.xcode]), unsignedData: .refused)
        #expect(refused.kind == .invalidJWTFormat, "\(refused.reason)")
    }

    @Test func unsignedDataWithAnInventedChainIsRefusedWhereOnlySignedDataIsTaken() throws {
        // A zero signature under the test PKI's chain, declaring Xcode: the forgery of the issue.
        let parts = try TestPKI.sign(TestPKI.notification(environment: "Xcode", appAppleId: nil)).split(separator: ".")
        let forged = [String(parts[0]), String(parts[1]), Base64URL.encode([UInt8](repeating: 0, count: 64))].joined(separator: ".")
        let verifier = try TestPKI.verifier(environments: [.xcode, .sandbox])
        let error = try rejection(forged, verifier: verifier, unsignedData: .refused)
        #expect(error.kind == .verificationFailure || error.kind == .invalidJWTFormat, "\(error.code): \(error.reason)")
    }

    // MARK: appData

    static func rescindConsent(environment: String = "Sandbox", appTransaction: String? = nil) throws -> [String: Any] {
        let appTransactionJWS = try appTransaction ?? TestPKI.sign([
            "receiptType": environment, "bundleId": TestPKI.bundleId, "appAppleId": TestPKI.appAppleId,
            "applicationVersion": "1", "receiptCreationDate": TestPKI.fixedTimeMilliseconds,
            "originalPurchaseDate": TestPKI.fixedTimeMilliseconds, "signedDate": TestPKI.fixedTimeMilliseconds,
        ])
        return [
            "notificationType": "RESCIND_CONSENT", "notificationUUID": "002e14d5-51f5-4503-b5a8-c3a1af68eb20",
            "version": "2.0", "signedDate": TestPKI.fixedTimeMilliseconds,
            "appData": [
                "appAppleId": TestPKI.appAppleId, "bundleId": TestPKI.bundleId, "environment": environment,
                "signedAppTransactionInfo": appTransactionJWS,
            ] as [String: Any],
        ]
    }

    @Test func aNotificationScopedByAppDataIsVerifiedAndItsAppTransactionDecoded() throws {
        let verified = try TestPKI.verifier().verify(TestPKI.sign(Self.rescindConsent()), now: now)
        #expect(verified.type == .notification)
        #expect(verified.environment == .sandbox)
        #expect(try object(verified.appTransactionInfo)["applicationVersion"] as? String == "1")
        #expect(verified.transactionInfo == nil)
    }

    @Test func appDataOfAnotherAppIsStillInvalidAppIdentifier() throws {
        var payload = try Self.rescindConsent()
        var appData = try #require(payload["appData"] as? [String: Any])
        appData["bundleId"] = "com.attacker.app"
        payload["appData"] = appData
        #expect(try rejection(TestPKI.sign(payload), verifier: TestPKI.verifier()).kind == .invalidAppIdentifier)
    }

    @Test func aForgedAppTransactionInAppDataFailsTheNotification() throws {
        let good = try TestPKI.sign(["receiptType": "Sandbox", "bundleId": TestPKI.bundleId,
                                     "receiptCreationDate": TestPKI.fixedTimeMilliseconds])
        let parts = good.split(separator: ".")
        let forged = [String(parts[0]), String(parts[1]), Base64URL.encode([UInt8](repeating: 7, count: 64))].joined(separator: ".")
        let error = try rejection(TestPKI.sign(Self.rescindConsent(appTransaction: forged)), verifier: TestPKI.verifier())
        #expect(error.kind == .verificationFailure)
        #expect(error.reason.contains("signedAppTransactionInfo"))
    }

    // MARK: nested JWS of the wrong kind or environment

    @Test func aTransactionWhereRenewalInfoBelongsIsRefused() throws {
        let transaction = try TestPKI.sign(TestPKI.transaction())
        let error = try rejection(TestPKI.sign(TestPKI.notification(renewalJWS: transaction)), verifier: TestPKI.verifier())
        #expect(error.kind == .invalidJWTFormat)
        #expect(error.reason.contains("signedRenewalInfo"), "\(error.reason)")
    }

    @Test func renewalInfoWhereTheTransactionBelongsIsRefused() throws {
        let renewal = try TestPKI.sign(TestPKI.renewalInfo())
        let error = try rejection(TestPKI.sign(TestPKI.notification(transactionJWS: renewal)), verifier: TestPKI.verifier())
        #expect(error.kind == .invalidJWTFormat)
        #expect(error.reason.contains("signedTransactionInfo"), "\(error.reason)")
    }

    @Test func aTypeTheCallerNamesMustBeThePayloadsKind() throws {
        let transaction = try TestPKI.sign(TestPKI.transaction())
        #expect(try rejection(transaction, as: .renewalInfo, verifier: TestPKI.verifier()).kind == .invalidJWTFormat)
        #expect(try rejection(transaction, as: .notification, verifier: TestPKI.verifier()).kind == .invalidJWTFormat)
        #expect(try TestPKI.verifier().verify(transaction, as: .transaction, now: now).type == .transaction)
    }

    @Test func aNestedTransactionOfAnotherEnvironmentNamesBothAndIsRefusedNotDropped() throws {
        // Both environments accepted: the contradiction itself is the fault.
        let production = try TestPKI.sign(TestPKI.transaction(environment: "Production"))
        let error = try rejection(TestPKI.sign(TestPKI.notification(environment: "Sandbox", transactionJWS: production)),
                                  verifier: TestPKI.verifier())
        #expect(error.kind == .invalidEnvironment)
        #expect(error.reason.contains("Production") && error.reason.contains("Sandbox"), "\(error.reason)")
        #expect(error.unacceptedEnvironment == nil)

        // Only Sandbox accepted: the refusal names the nested environment, not the envelope's.
        let sandboxOnly = try TestPKI.verifier(environments: [.sandbox])
        let nested = try rejection(TestPKI.sign(TestPKI.notification(environment: "Sandbox", transactionJWS: production)),
                                   verifier: sandboxOnly)
        #expect(nested.kind == .invalidEnvironment)
        #expect(nested.reason.contains("signedTransactionInfo") && nested.reason.contains("Production"), "\(nested.reason)")
        #expect(nested.unacceptedEnvironment == nil)
    }

    @Test func anEnvelopeOfAnUnacceptedEnvironmentNamesIt() throws {
        let error = try rejection(TestPKI.sign(TestPKI.notification(environment: "Sandbox")),
                                  verifier: TestPKI.verifier(environments: [.production]))
        #expect(error.kind == .invalidEnvironment)
        #expect(error.unacceptedEnvironment == "Sandbox")
    }

    // MARK: payloads two readers could read differently

    /// Signs raw payload bytes (JSONSerialization could not make them).
    private func signRaw(_ payload: [UInt8]) throws -> String {
        let signer = JWSSigner(key: try TestPKI.key("leaf"),
                               header: JOSEHeader(alg: "ES256", x5c: try TestPKI.x5c(["leaf", "intermediate", "root"])))
        return try signer.sign(payload: payload)
    }

    @Test(arguments: [
        // The check reads the first bundleId, a last-wins reader the second.
        #"{"transactionId":"1","originalTransactionId":"1","bundleId":"com.example.storekeeper","bundleId":"com.attacker","environment":"Sandbox","signedDate":1780272000000}"#,
        // Duplicates compared decoded.
        #"{"transactionId":"1","originalTransactionId":"1","bundleId":"com.example.storekeeper","environment":"Sandbox","environ\u006dent":"Production","signedDate":1780272000000}"#,
        // Nested duplicates too.
        #"{"transactionId":"1","originalTransactionId":"1","bundleId":"com.example.storekeeper","environment":"Sandbox","signedDate":1780272000000,"x":{"a":1,"a":2}}"#,
    ])
    func duplicateKeysAreInvalidFormat(_ payload: String) throws {
        let error = try rejection(signRaw(Array(payload.utf8)), verifier: TestPKI.verifier())
        #expect(error.kind == .invalidJWTFormat, "\(error.reason)")
        #expect(error.reason.contains("duplicate"), "\(error.reason)")
    }

    @Test func aByteOrderMarkOrBytesThatAreNotUTF8AreInvalidFormat() throws {
        let json = Array(#"{"transactionId":"1","originalTransactionId":"1","bundleId":"com.example.storekeeper","environment":"Sandbox","signedDate":1780272000000}"#.utf8)
        #expect(try TestPKI.verifier().verify(signRaw(json), now: now).type == .transaction)
        #expect(try rejection(signRaw([0xEF, 0xBB, 0xBF] + json), verifier: TestPKI.verifier()).kind == .invalidJWTFormat)
        var latin1 = json
        latin1.insert(0xE9, at: latin1.firstIndex(of: UInt8(ascii: "1"))!)
        #expect(try rejection(signRaw(latin1), verifier: TestPKI.verifier()).kind == .invalidJWTFormat)
        let loneSurrogate = Array(#"{"transactionId":"1","originalTransactionId":"1","bundleId":"com.example.storekeeper","environment":"Sandbox","signedDate":1780272000000,"note":"\ud800"}"#.utf8)
        #expect(try rejection(signRaw(loneSurrogate), verifier: TestPKI.verifier()).kind == .invalidJWTFormat)
    }

    @Test func thePayloadKeptIsTheParsedValueWithEveryFieldAndTypeAsSigned() throws {
        let signed = #"{ "transactionId":"1", "originalTransactionId":"1", "bundleId":"com.example.storekeeper", "environment":"Sandbox", "signedDate":1780272000000, "price":9990, "taxRate":"0.15", "fraction":1697679936056.485, "big":9007199254740993, "flag":false, "none":null, "nested":{"unknown":[1,"two",{"three":3.0}],"escaped":"a\"b\\c\/d\u00e9\n"} }"#
        let verified = try TestPKI.verifier().verify(signRaw(Array(signed.utf8)), now: now)
        let expected = #"{"transactionId":"1","originalTransactionId":"1","bundleId":"com.example.storekeeper","environment":"Sandbox","signedDate":1780272000000,"price":9990,"taxRate":"0.15","fraction":1697679936056.485,"big":9007199254740993,"flag":false,"none":null,"nested":{"unknown":[1,"two",{"three":3.0}],"escaped":"a\"b\\c/dé\n"}}"#
        #expect(String(decoding: verified.payload, as: UTF8.self) == expected)
    }
}

@Suite("StrictJSON: RFC 8259, I-JSON's rules, numbers as written")
struct StrictJSONTests {
    @Test(arguments: ["{}", "[]", "0", "-0.5e+10", "\"\"", "true", "null", #"{"a":[1,2,{"b":null}]}"#, " {\"a\" : 1 } "])
    func accepts(_ text: String) throws {
        let value = try StrictJSON.parse(Array(text.utf8))
        // Re-encoding is a fixed point.
        #expect(try StrictJSON.parse(value.encoded()) == value)
    }

    @Test(arguments: ["", "{", "{\"a\":1,}", "[1,]", "01", "1.", ".5", "1e", "+1", "\"\u{01}\"", "\"\\x\"", "{\"a\" 1}",
                      "nul", "truex", "{} {}", "[\"\\ud800\"]", "[\"\\udc00\"]", "{\"a\":1,\"a\":1}", "NaN", "'a'"])
    func refuses(_ text: String) {
        #expect(throws: StrictJSON.FormatError.self) { try StrictJSON.parse(Array(text.utf8)) }
    }

    @Test func nestingIsBounded() throws {
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(throws: StrictJSON.FormatError.self) { try StrictJSON.parse(Array(deep.utf8)) }
        let fine = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        _ = try StrictJSON.parse(Array(fine.utf8))
    }

    @Test func surrogatePairsDecodeToOneCharacter() throws {
        #expect(try StrictJSON.parse(Array(#""\ud83d\ude00""#.utf8)) == .string("😀"))
    }

    /// UTF-8 is checked in every string, escaped or not, names too; outside strings only ASCII
    /// is grammar. Multi-byte characters pass whole.
    @Test func textThatIsNotUTF8IsRefusedWherever() throws {
        let quote = UInt8(ascii: "\"")
        for bytes: [UInt8] in [
            [quote, 0xE9, quote],                                          // Latin-1 é
            [quote, 0x41, 0x5C, 0x6E, 0xC3, quote],                        // a lead byte cut off after an escape
            [quote, 0x5C, 0x6E, 0xA9, quote],                              // a continuation byte after an escape
            [UInt8(ascii: "{"), quote, 0xFF, quote, UInt8(ascii: ":"), UInt8(ascii: "1"), UInt8(ascii: "}")],  // in a name
            [UInt8(ascii: "["), 0xC3, 0xA9, UInt8(ascii: "]")],            // é outside a string
            [quote, 0xED, 0xA0, 0x80, quote],                              // an encoded surrogate
        ] {
            #expect(throws: StrictJSON.FormatError.self, "\(bytes)") { try StrictJSON.parse(bytes) }
        }
        #expect(try StrictJSON.parse(Array("\"é\\n😀\"".utf8)) == .string("é\n😀"))
        #expect(try StrictJSON.parse(Array("{\"é\":\"ü\"}".utf8))["é"] == .string("ü"))
    }
}
