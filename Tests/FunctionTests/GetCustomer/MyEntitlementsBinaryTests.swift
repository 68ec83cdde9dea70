import Foundation
import SQLiteStore
import StorekeeperCore
import Testing

/// `my-entitlements` as a black box over the HTTP event envelope: the session's own user's
/// customer answer, nobody else's; a session that is not open is 401.
@Suite("my-entitlements: the signed-in user's own answer")
struct MyEntitlementsBinaryTests {
    static func event(bearer: String?, query: String = "") throws -> Data {
        var headers: [String: String] = [:]
        if let bearer { headers["authorization"] = "Bearer " + bearer }
        return try JSONSerialization.data(withJSONObject: [
            "version": "2.0", "rawPath": "/me/entitlements", "rawQueryString": query, "headers": headers,
            "requestContext": ["http": ["method": "GET"]], "isBase64Encoded": false,
        ] as [String: Any])
    }

    static func answer(_ world: CustomerWorld, bearer: String?, query: String = "") throws -> (status: Int?, body: [String: Any]) {
        let result = try FunctionBinary(name: "my-entitlements").run(stdin: try event(bearer: bearer, query: query),
                                                                     environment: world.environment)
        let envelope = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any], "\(result.stderrText)")
        let body = try #require(envelope["body"] as? String, "\(envelope)")
        return (envelope["statusCode"] as? Int, try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]))
    }

    @Test func aSessionAnswersItsOwnUserOnly() throws {
        let world = CustomerWorld()
        try world.ingest([(CustomerWorld.transaction("4000", product: "com.example.pro.monthly"), nil)], userId: "u-mine")
        try world.ingest([(CustomerWorld.transaction("4100", product: "com.example.other"), nil)], userId: "u-someone-else")
        let session = try SessionRepository(store: SQLiteStore(path: world.storePath))
            .open(userId: "u-mine", now: Date(timeIntervalSince1970: 1_780_272_000))
        let (status, body) = try Self.answer(world, bearer: session.id)
        #expect(status == 200, "\(body)")
        let customer = try #require(body["customer"] as? [String: Any])
        #expect(customer["userId"] as? String == "u-mine")
        #expect((customer["entitlements"] as? [String: Any])?.keys.sorted() == ["com.example.pro.monthly"])

        // A user with a session and nothing bought has an empty answer, not someone else's.
        let newcomer = try SessionRepository(store: SQLiteStore(path: world.storePath))
            .open(userId: "u-new", now: Date(timeIntervalSince1970: 1_780_272_000))
        let empty = try Self.answer(world, bearer: newcomer.id)
        #expect(empty.status == 200)
        #expect(((empty.body["customer"] as? [String: Any])?["entitlements"] as? [String: Any])?.isEmpty == true)
    }

    @Test func aSessionThatIsNotOpenIsRefused() throws {
        let world = CustomerWorld()
        for bearer in [nil, String(repeating: "0", count: 64)] as [String?] {
            let (status, body) = try Self.answer(world, bearer: bearer)
            #expect(status == 401)
            #expect((body["error"] as? [String: Any])?["code"] as? String == "invalid_session")
        }
        // An expired one too: opened 31 days before now.
        let old = try SessionRepository(store: SQLiteStore(path: world.storePath))
            .open(userId: "u-old", now: Date(timeIntervalSince1970: 1_780_272_000 - 31 * 86_400))
        #expect(try Self.answer(world, bearer: old.id).status == 401)
    }
}
