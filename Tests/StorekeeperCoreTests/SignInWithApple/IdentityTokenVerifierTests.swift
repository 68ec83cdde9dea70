import Foundation
import OpenSSLCrypto
import StorekeeperCore
import Testing

@Suite("Sign in with Apple: identity-token verification order")
struct IdentityTokenVerifierTests {
    let keys = AppleIDTestKeys.shared
    let now = AppleIDTestKeys.now

    var verifier: IdentityTokenVerifier {
        IdentityTokenVerifier(
            configuration: .init(clientIds: ["com.example.web", "com.example.storekeeper"], leeway: .seconds(60)),
            keys: StaticKeyProvider(JWKSet(keys: [keys.jwk])))
    }

    func rejection(_ token: String, nonce: String? = "n-123") -> String? {
        do {
            _ = try verifier.verify(token, expectedNonce: nonce, now: now)
            return nil
        } catch {
            return error.code
        }
    }

    @Test func aGoodTokenVerifiesWithNormalisedClaims() throws {
        let verified = try verifier.verify(try keys.token(AppleIDTestKeys.claims()), expectedNonce: "n-123", now: now)
        #expect(verified.claims.sub == "001234.abcdef.0001")
        #expect(verified.claims.emailVerified == true)
        #expect(verified.claims.isPrivateEmail == false)
        #expect(verified.claims.realUserStatusValue == .likelyReal)
    }

    @Test(arguments: [("true", true), ("false", false)] as [(String, Bool)])
    func stringAndBooleanClaimsDecodeTheSame(_ pair: (String, Bool)) throws {
        let fromString = try verifier.verify(try keys.token(AppleIDTestKeys.claims(["email_verified": pair.0, "is_private_email": pair.0])),
                                             expectedNonce: nil, now: now)
        let fromBool = try verifier.verify(try keys.token(AppleIDTestKeys.claims(["email_verified": pair.1, "is_private_email": pair.1])),
                                           expectedNonce: nil, now: now)
        #expect(fromString.claims.emailVerified == pair.1)
        #expect(fromBool.claims.emailVerified == pair.1)
        #expect(fromString.claims.isPrivateEmail == pair.1)
        #expect(fromBool.claims.isPrivateEmail == pair.1)
    }

    @Test func transferSubIsKept() throws {
        let verified = try verifier.verify(try keys.token(AppleIDTestKeys.claims(["transfer_sub": "old.team.sub"])), expectedNonce: nil, now: now)
        #expect(verified.claims.transferSub == "old.team.sub")
    }

    @Test func notAJWSIsMalformed() {
        #expect(rejection("hello") == "malformed_token")
        #expect(rejection("a.b.c") == "malformed_token")
    }

    @Test func algNoneIsUnsupportedAlgorithm() throws {
        let head = Base64URL.encode(Array(#"{"alg":"none","kid":"test-key-1"}"#.utf8))
        let body = Base64URL.encode(try JSONSerialization.data(withJSONObject: AppleIDTestKeys.claims()))
        #expect(rejection("\(head).\(body).") == "unsupported_algorithm")
        #expect(rejection("\(head).\(body).c2ln") == "unsupported_algorithm")
    }

    @Test func hs256SignedWithThePublicKeyIsUnsupportedAlgorithm() throws {
        #expect(rejection(try keys.hs256WithPublicKey(AppleIDTestKeys.claims())) == "unsupported_algorithm")
    }

    @Test func hmacHelperIsRight() {
        // RFC 4231 test case 2, so the attack token above is a real HS256 token.
        #expect(Hex.encode(HMACSHA256.mac(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8)))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test func es256IsUnsupportedAlgorithm() throws {
        #expect(rejection(try keys.token(AppleIDTestKeys.claims(), header: ["alg": "ES256", "kid": keys.kid])) == "unsupported_algorithm")
    }

    @Test func unknownOrMissingKidIsUnknownKey() throws {
        #expect(rejection(try keys.token(AppleIDTestKeys.claims(), header: ["alg": "RS256", "kid": "other"])) == "unknown_key")
        #expect(rejection(try keys.token(AppleIDTestKeys.claims(), header: ["alg": "RS256"])) == "unknown_key")
    }

    @Test func anotherKeysSignatureIsInvalidSignature() throws {
        let stranger = try RSAPrivateKey.generate()
        #expect(rejection(try keys.token(AppleIDTestKeys.claims(), key: stranger)) == "invalid_signature")
    }

    @Test func aChangedPayloadIsInvalidSignature() throws {
        let good = try keys.token(AppleIDTestKeys.claims()).split(separator: ".")
        let other = try keys.token(AppleIDTestKeys.claims(["sub": "someone.else"])).split(separator: ".")
        #expect(rejection("\(good[0]).\(other[1]).\(good[2])") == "invalid_signature")
    }

    @Test func eachClaimCheckHasItsCode() throws {
        let s = AppleIDTestKeys.nowSeconds
        #expect(rejection(try keys.token(AppleIDTestKeys.claims(["iss": "https://appleid.apple.com.evil"]))) == "invalid_issuer")
        #expect(rejection(try keys.token(AppleIDTestKeys.claims(["aud": "com.other.app"]))) == "invalid_audience")
        #expect(rejection(try keys.token(AppleIDTestKeys.claims(["exp": s - 61]))) == "token_expired")
        #expect(rejection(try keys.token(AppleIDTestKeys.claims(["iat": s + 61]))) == "issued_in_future")
        #expect(rejection(try keys.token(AppleIDTestKeys.claims(["nonce": "other"]))) == "nonce_mismatch")
        #expect(rejection(try keys.token(AppleIDTestKeys.claims().filter { $0.key != "nonce" })) == "nonce_mismatch")
    }

    @Test func leewayAllowsSmallSkew() throws {
        let s = AppleIDTestKeys.nowSeconds
        #expect(rejection(try keys.token(AppleIDTestKeys.claims(["exp": s - 59, "iat": s + 59]))) == nil)
    }

    @Test func theOrderIsFixed() throws {
        // Wrong in every claim: the first check in the order names the failure.
        let s = AppleIDTestKeys.nowSeconds
        let everythingWrong = AppleIDTestKeys.claims(["iss": "x", "aud": "y", "exp": s - 1000, "iat": s + 1000, "nonce": "z"])
        #expect(rejection(try keys.token(everythingWrong)) == "invalid_issuer")
        #expect(rejection(try keys.token(everythingWrong.merging(["iss": "https://appleid.apple.com"]) { $1 })) == "invalid_audience")
        #expect(rejection(try keys.token(everythingWrong.merging(["iss": "https://appleid.apple.com", "aud": "com.example.web"]) { $1 })) == "token_expired")
        // A bad signature is reported before any claim is looked at.
        #expect(rejection(try keys.token(everythingWrong, key: try RSAPrivateKey.generate())) == "invalid_signature")
        // And the algorithm before the key.
        #expect(rejection(try keys.token(everythingWrong, header: ["alg": "RS384", "kid": "unknown"])) == "unsupported_algorithm")
    }

    @Test func acceptedIssuersAreConfigurable() throws {
        let custom = IdentityTokenVerifier(
            configuration: .init(clientIds: ["com.example.web"], acceptedIssuers: ["https://appleid.apple.com", "https://account.apple.com"]),
            keys: StaticKeyProvider(JWKSet(keys: [keys.jwk])))
        _ = try custom.verify(try keys.token(AppleIDTestKeys.claims(["iss": "https://account.apple.com"])), expectedNonce: nil, now: now)
    }

    @Test func nativeNonceIsTheSHA256HexOfTheRawNonce() {
        #expect(IdentityTokenVerifier.hashedNonce("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func notificationsDecodeTheirEventsString() throws {
        let events = #"{"type":"email-disabled","sub":"001234.abcdef.0001","email":"x@privaterelay.appleid.com","is_private_email":"true","event_time":1780271999000}"#
        let token = try keys.token(["iss": "https://appleid.apple.com", "aud": "com.example.web", "iat": AppleIDTestKeys.nowSeconds,
                                    "jti": "jti-1", "events": events])
        let notification = try verifier.verifyNotification(token, now: now)
        #expect(notification.jti == "jti-1")
        #expect(notification.event.typeValue == .emailDisabled)
        #expect(notification.event.isPrivateEmail == true)
        #expect(notification.event.eventTime == 1_780_271_999_000)
        let wrongAudience = try keys.token(["iss": "https://appleid.apple.com", "aud": "com.other", "iat": AppleIDTestKeys.nowSeconds,
                                            "jti": "jti-2", "events": events])
        #expect(throws: IdentityTokenError(.invalidAudience, "")) { try verifier.verifyNotification(wrongAudience, now: now) }
    }
}
