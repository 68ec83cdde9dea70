import FunctionRuntime
import Testing

@Suite("Log redaction")
struct LogRedactionTests {
    @Test func aJWSIsReplacedWhereverItAppears() throws {
        let text = "payload \(TestTokens.jws), next"
        #expect(LogRedaction.redact(text) == "payload \(LogRedaction.redactedJWS), next")
        #expect(LogRedaction.redact(TestTokens.jws) == LogRedaction.redactedJWS)
    }

    @Test func aDetachedOrFivePartTokenIsReplaced() throws {
        #expect(LogRedaction.redact("eyJhbGciOiJFUzI1NiJ9..c2lnbmF0dXJl") == LogRedaction.redactedJWS)
        #expect(LogRedaction.redact("eyJhbGciOiJSU0EtT0FFUCJ9.a.b.c.d") == LogRedaction.redactedJWS)
    }

    @Test func bearerAndBasicCredentialsAreReplaced() throws {
        #expect(LogRedaction.redact("Authorization: Bearer abc.def-123") == "Authorization: Bearer [redacted]")
        #expect(LogRedaction.redact("got bearer  xyz, then") == "got bearer  [redacted], then")
        #expect(LogRedaction.redact("Basic dXNlcjpwYXNz") == "Basic [redacted]")
    }

    @Test func pemBlocksAreReplaced() throws {
        #expect(LogRedaction.redact("-----BEGIN PRIVATE KEY-----\nMIGH\n-----END PRIVATE KEY-----") == "[redacted-pem]")
    }

    @Test func ordinaryTextIsKept() throws {
        for text in [
            "version 1.2.3", "oid 1.2.840.113635.100.6.11.1", "com.example.app", "user 5f1c9d2e-8a4b-4c1d-9e2f-0a1b2c3d4e5f",
            "bearer", "a.b.c", "api.storekit.itunes.apple.com", "", "é✓ unicode stays",
        ] {
            #expect(LogRedaction.redact(text) == text)
        }
    }

    @Test func sensitiveFieldNamesAreBlanked() throws {
        #expect(LogRedaction.isSensitiveKey("adminToken"))
        #expect(LogRedaction.isSensitiveKey("client_secret"))
        #expect(LogRedaction.isSensitiveKey("Authorization"))
        #expect(LogRedaction.isSensitiveKey("signedPayload"))
        #expect(!LogRedaction.isSensitiveKey("userId"))
        #expect(LogRedaction.redact(.string("plain"), key: "id_token") == .string(LogRedaction.redacted))
        #expect(LogRedaction.redact(.integer(5), key: "count") == .integer(5))
    }
}
