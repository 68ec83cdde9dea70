import Foundation
import StorekeeperCore
import Testing

@Suite("JSONObjectBuilder")
struct JSONObjectBuilderTests {
    @Test func buildsValidJSONWithEscapesAndSplicedValues() throws {
        var builder = JSONObjectBuilder()
        builder.add("text", "quote \" backslash \\ newline \n tab \t bell \u{07} é ☃")
        builder.add("flag", true)
        builder.add("raw", rawJSON: Array(#"{"a":[1,2,{"b":null}]}"#.utf8))
        try builder.add("encoded", encoding: ["x": 1])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(builder.build())) as? [String: Any])
        #expect(object["text"] as? String == "quote \" backslash \\ newline \n tab \t bell \u{07} é ☃")
        #expect(object["flag"] as? Bool == true)
        #expect((object["raw"] as? [String: Any])?["a"] is [Any])
        #expect((object["encoded"] as? [String: Int])?["x"] == 1)
    }

    @Test func escapesExactlyWhatNeedsItAndCopiesTheRunsBetween() {
        func literal(_ text: String) -> String {
            var bytes: [UInt8] = []
            JSONObjectBuilder.appendString(text, to: &bytes)
            return String(decoding: bytes, as: UTF8.self)
        }
        #expect(literal("") == #""""#)
        #expect(literal("plain") == #""plain""#)
        #expect(literal("\"\\") == #""\"\\""#)
        #expect(literal("a\rb\u{7F}\u{1F}") == #""a\rb\u007f\u001f""#)
        #expect(literal("\nstart and end\t") == #""\nstart and end\t""#)
        #expect(literal("é☃ \u{1F600}") == "\"é☃ \u{1F600}\"")
        let long = String(repeating: "eyJhbGciOiJFUzI1NiJ9", count: 300)
        #expect(literal(long + "\"" + long) == "\"" + long + "\\\"" + long + "\"")
    }

    @Test func emptyObject() {
        #expect(JSONObjectBuilder().build() == Array("{}".utf8))
    }
}
