@testable import FunctionRuntime
import StorekeeperCore
import Testing

/// What the functions below answer: who called.
struct WhoAmIResponse: Encodable {
    let caller: String?
    let scope: String?

    init(_ call: FunctionRequest) {
        caller = call.caller?.name
        scope = call.caller?.scope.rawValue
    }
}

func whoAmIDescriptor(_ scope: AccessScope, visibility: Visibility = .internal) -> FunctionDescriptor {
    FunctionDescriptor(name: "who-\(scope.rawValue)", route: "/who", method: "GET", visibility: visibility,
                       summary: "Says who called.", request: "{}", response: #"{"caller": string}"#, scope: scope)
}

/// A function that needs scope read, and answers who called it; the same for support, admin
/// and a public one.
final class ReadWhoAmI: TypedFunction {
    static let descriptor = whoAmIDescriptor(.read)
    init(context: FunctionContext) throws {}
    func handle(_ request: NoFields, call: FunctionRequest) throws -> Reply<WhoAmIResponse> { Reply(WhoAmIResponse(call)) }
}

final class SupportWhoAmI: TypedFunction {
    static let descriptor = whoAmIDescriptor(.support)
    init(context: FunctionContext) throws {}
    func handle(_ request: NoFields, call: FunctionRequest) throws -> Reply<WhoAmIResponse> { Reply(WhoAmIResponse(call)) }
}

final class AdminWhoAmI: TypedFunction {
    static let descriptor = whoAmIDescriptor(.admin)
    init(context: FunctionContext) throws {}
    func handle(_ request: NoFields, call: FunctionRequest) throws -> Reply<WhoAmIResponse> { Reply(WhoAmIResponse(call)) }
}

final class PublicWhoAmI: TypedFunction {
    static let descriptor = whoAmIDescriptor(.admin, visibility: .public)
    init(context: FunctionContext) throws {}
    func handle(_ request: NoFields, call: FunctionRequest) throws -> Reply<WhoAmIResponse> { Reply(WhoAmIResponse(call)) }
}

@Suite("Named, scoped bearer tokens")
struct NamedTokenTests {
    static let reader = "reader-token-0123456789"
    static let helper = "support-token-0123456789"
    static let helperNext = "support-token-next-98765"
    static let ops = "ops-admin-token-0123456789"
    static let oldAdmin = "old-admin-token-0123456789"
    static let environment = [
        RuntimeVariable.adminToken: TestTokens.admin,
        RuntimeVariable.tokens: "dash:read:\(reader), desk:support:\(helper),desk:support:\(helperNext),ops:admin:\(ops),admin:admin:\(oldAdmin)",
    ]

    struct Outcome {
        let status: Int
        let exitCode: Int32
        let body: JSONValue
        let headers: JSONValue?
        let log: [String]
    }

    static func call<H: FunctionHandler>(_ handler: H.Type, bearer: String?, environment: [String: String] = environment) throws -> Outcome {
        let headers = bearer.map { ["authorization": "Bearer \($0)"] } ?? [:]
        let event = try Run.event(method: "GET", path: "/who", headers: headers)
        let result = FunctionRunner.run(handler, environment: environment, stdin: Array(event.utf8))
        let answer = try Run.json(result.stdoutText)
        let body = try Run.json(answer["body"]?.stringValue ?? "{}")
        var status = 0
        if case .number(let code)? = answer["statusCode"] { status = Int(code) }
        return Outcome(status: status, exitCode: result.exitCode, body: body,
                       headers: answer["headers"], log: result.logLines)
    }

    /// Every token against every kind of function: a scope reaches its own functions and the
    /// narrower ones, never a wider one.
    @Test(arguments: [
        (reader, "dash", AccessScope.read), (helper, "desk", .support), (helperNext, "desk", .support),
        (ops, "ops", .admin), (TestTokens.admin, "admin", .admin), (oldAdmin, "admin", .admin),
    ])
    func eachScopeAgainstEachKindOfFunction(_ token: String, _ name: String, _ scope: AccessScope) throws {
        let functions: [(any FunctionHandler.Type, AccessScope)] = [(ReadWhoAmI.self, .read), (SupportWhoAmI.self, .support), (AdminWhoAmI.self, .admin)]
        for (function, needed) in functions {
            let outcome = try Self.call(function, bearer: token)
            if scope.allows(needed) {
                #expect(outcome.status == 200, "\(name) on a \(needed) function: \(outcome.body)")
                #expect(outcome.body["caller"]?.stringValue == name)
                #expect(outcome.body["scope"]?.stringValue == scope.rawValue)
                #expect(outcome.log.contains { $0.contains(#""caller":"\#(name)""#) })
            } else {
                #expect(outcome.status == 403, "\(name) on a \(needed) function")
                #expect(outcome.exitCode == 65)
                #expect(outcome.body["error"]?["code"]?.stringValue == "insufficient_scope")
                #expect(outcome.headers?["www-authenticate"]?.stringValue == #"Bearer error="insufficient_scope", scope="\#(needed.rawValue)""#)
            }
            #expect(!outcome.log.contains { $0.contains(token) }, "a token reached the log")
        }
    }

    @Test func aWrongTokenIs401WhateverItResembles() throws {
        for bearer in [nil, "wrong", Self.reader + "x", String(Self.reader.dropLast()), "dash:read:\(Self.reader)", "dash", ""] as [String?] {
            let outcome = try Self.call(ReadWhoAmI.self, bearer: bearer)
            #expect(outcome.status == 401, "\(bearer ?? "none")")
            #expect(outcome.body["error"]?["code"]?.stringValue == "unauthorized")
        }
    }

    @Test func rotationKeepsBothValuesAndDroppingOneRefusesIt() throws {
        #expect(try Self.call(SupportWhoAmI.self, bearer: Self.helper).status == 200)
        #expect(try Self.call(SupportWhoAmI.self, bearer: Self.helperNext).status == 200)
        // The rotation done: the old value is gone from the list and refused.
        let after = [RuntimeVariable.adminToken: TestTokens.admin, RuntimeVariable.tokens: "desk:support:\(Self.helperNext)"]
        #expect(try Self.call(SupportWhoAmI.self, bearer: Self.helper, environment: after).status == 401)
        #expect(try Self.call(SupportWhoAmI.self, bearer: Self.helperNext, environment: after).status == 200)
        #expect(try Self.call(AdminWhoAmI.self, bearer: Self.oldAdmin, environment: after).status == 401)
    }

    @Test func namedTokensAloneServeWithoutTheAdminToken() throws {
        let environment = [RuntimeVariable.tokens: "dash:read:\(Self.reader)"]
        #expect(try Self.call(ReadWhoAmI.self, bearer: Self.reader, environment: environment).status == 200)
        #expect(try Self.call(AdminWhoAmI.self, bearer: Self.reader, environment: environment).status == 403)
    }

    @Test(arguments: [
        "dash:read", "dash:reader:\(reader)", "da sh:read:\(reader)", ":read:\(reader)", "dash:read:short",
        "dash:read:\(reader),", "a:read:\(reader),a:read:\(helper),a:read:\(helperNext)",
        "a:read:\(reader),a:admin:\(helper)", "a:read:\(reader),b:read:\(reader)", "admin:read:\(reader)",
        "\(reader):desk:read", "\(reader):read:short",
    ])
    func aBadListIsAConfigurationErrorThatRepeatsNoToken(_ list: String) throws {
        let outcome = try Self.call(ReadWhoAmI.self, bearer: Self.reader,
                                    environment: [RuntimeVariable.adminToken: TestTokens.admin, RuntimeVariable.tokens: list])
        #expect(outcome.status == 500, "\(list)")
        #expect(outcome.exitCode == 78)
        #expect(outcome.body["error"]?["code"]?.stringValue == "configuration_error")
        #expect(outcome.log.contains { $0.contains(RuntimeVariable.tokens) }, "\(outcome.log)")
        for secret in [Self.reader, Self.helper, Self.helperNext, TestTokens.admin, "short"] {
            #expect(!outcome.log.contains { $0.contains(secret) }, "\(list): the log repeats a token")
        }
    }

    @Test func theCallerIsLocalDirectlyAndAnonymousOnAPublicRouteWithoutAToken() throws {
        let direct = FunctionRunner.run(ReadWhoAmI.self, environment: Self.environment, stdin: Array("{}".utf8))
        #expect(try Run.json(direct.stdoutText)["caller"]?.stringValue == "local")
        #expect(try Self.call(PublicWhoAmI.self, bearer: nil).body["caller"] == nil, "no caller is named")
        #expect(try Self.call(PublicWhoAmI.self, bearer: "nobody").body["caller"] == nil, "no caller is named")
        #expect(try Self.call(PublicWhoAmI.self, bearer: Self.helper).body["caller"]?.stringValue == "desk")
    }

    @Test func adminAuthorizationForPublicFieldsNeedsScopeAdmin() throws {
        let environment = EnvironmentVariables(Self.environment)
        func request(_ bearer: String) -> FunctionRequest {
            FunctionRequest(frontDoor: .httpEvent, headers: ["authorization": "Bearer \(bearer)"])
        }
        #expect(request(Self.ops).carriesAdminAuthorization(environment))
        #expect(request(Self.oldAdmin).carriesAdminAuthorization(environment))
        #expect(request(TestTokens.admin).carriesAdminAuthorization(environment))
        #expect(!request(Self.helper).carriesAdminAuthorization(environment))
        #expect(!request(Self.reader).carriesAdminAuthorization(environment))
    }

    @Test func everyCandidateIsComparedAndTheFirstMatchNames() {
        let tokens = [NamedToken(name: "a", scope: .read, token: "same-length-token-1"),
                      NamedToken(name: "b", scope: .admin, token: "same-length-token-2")]
        #expect(AdminAuthorization.caller(header: "Bearer same-length-token-2", among: tokens)?.name == "b")
        #expect(AdminAuthorization.caller(header: "Bearer same-length-token-1", among: tokens)?.name == "a")
        #expect(AdminAuthorization.caller(header: "Bearer same-length-token-", among: tokens) == nil)
        #expect(AdminAuthorization.caller(header: "Bearer same-length-token-11", among: tokens) == nil)
        #expect(AdminAuthorization.caller(header: "Basic same-length-token-1", among: tokens) == nil)
    }
}
