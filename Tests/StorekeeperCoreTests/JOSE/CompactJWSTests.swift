import StorekeeperCore
import Testing

@Suite("CompactJWS parsing")
struct CompactJWSTests {
    // RFC 7515 appendix A.3 (ES256): header {"alg":"ES256"}.
    let rfcExample = "eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q"

    @Test func parsesTheRFCExample() throws {
        let jws = try CompactJWS(parsing: rfcExample)
        #expect(jws.header.alg == "ES256")
        #expect(jws.signature.count == 64)
        #expect(jws.signingInput == Array(rfcExample.split(separator: ".").prefix(2).joined(separator: ".").utf8))
        #expect(String(decoding: jws.payload, as: UTF8.self).hasPrefix("{\"iss\":\"joe\""))
    }

    @Test(arguments: [
        "", ".", "..", "a.b", "a.b.c.d", "eyJhbGciOiJFUzI1NiJ9..AA", "eyJhbGciOiJFUzI1NiJ9.e30.",
        ".e30.AA", "eyJhbGciOiJFUzI1NiJ9=.e30.AA", "e30.e30.AA",          // header without alg
        "W10.e30.AA",                                                     // header is an array
        "bm90IGpzb24.e30.AA",                                             // header is not JSON
    ])
    func rejects(_ text: String) {
        #expect(throws: JWSFormatError.self) { try CompactJWS(parsing: text) }
    }

    @Test func rejectsHugeInput() {
        let huge = String(repeating: "A", count: CompactJWS.maximumLength + 1)
        #expect(throws: JWSFormatError.self) { try CompactJWS(parsing: huge) }
    }

    /// The header is read strictly: a parameter named twice is refused (RFC 7515 §4), null is
    /// absent, a known parameter of the wrong type is refused, unknown parameters are ignored.
    @Test func theHeaderIsReadStrictly() throws {
        func header(_ json: String) throws(JWSFormatError) -> JOSEHeader {
            try JOSEHeader(json: Array(json.utf8))
        }
        var expected = JOSEHeader(alg: "ES256", kid: "K1", typ: "JWT", x5c: ["QQ==", "Qg=="])
        expected.crit = ["b64"]
        #expect(try header(#"{"alg":"ES256","kid":"K1","typ":"JWT","x5c":["QQ==","Qg=="],"crit":["b64"],"zip":7}"#) == expected)
        #expect(try header(#"{"alg":"ES256","kid":null,"x5c":null}"#) == JOSEHeader(alg: "ES256"))
        #expect(try header(#"{"alg":"ES\u0032\u00356"}"#).alg == "ES256")
        #expect(throws: JWSFormatError("header names a parameter twice")) { try header(#"{"alg":"none","alg":"ES256"}"#) }
        #expect(throws: JWSFormatError("header names a parameter twice")) { try header(#"{"alg":"ES256","x5c":[],"x\u0035c":[]}"#) }
        for bad in [#"{"alg":"ES256","kid":5}"#, #"{"alg":"ES256","x5c":["QQ==",1]}"#, #"{"alg":"ES256","x5c":"QQ=="}"#,
                    #"{"alg":null}"#, #"{"alg":"ES256"} x"#, "\u{FEFF}{\"alg\":\"ES256\"}", #"["alg"]"#] {
            #expect(throws: JWSFormatError("header is not a JSON object of the expected shape"), "\(bad)") { try header(bad) }
        }
    }
}
