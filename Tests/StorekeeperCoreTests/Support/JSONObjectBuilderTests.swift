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

    @Test func emptyObject() {
        #expect(JSONObjectBuilder().build() == Array("{}".utf8))
    }
}
