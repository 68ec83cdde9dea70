import Foundation
import StorekeeperCore
import Testing
import TestSupport

/// The store's layout mark through the built binaries, on both stores: a fresh store is
/// marked by the first function that opens it, and a store marked by a newer Storekeeper is
/// refused with exit 78 and a log that names both versions, before anything is read or written.
@Suite("The store layout mark through the binaries")
struct StoreLayoutTests {
    static let request = Data(#"{"appAccountToken":"6f1d4bde-3a4c-4bb5-9f32-5a2b8e0c1d2e"}"#.utf8)

    @Test("a fresh store gets the mark of this build's layout", arguments: Backend.allCases)
    func aFreshStoreIsMarked(backend: Backend) throws {
        let store = try TestStore(backend)
        let environment = E2E.environment(storeURL: store.url, adminToken: "x")
        let result = try FunctionBinary(name: "get-entitlements").run(stdin: Self.request, environment: environment)
        #expect(result.exitCode == 0, "\(result.stdoutText) \(result.stderrText)")
        let mark = try store.open().get(StoreKeys.layoutVersion)
        #expect(mark.map { String(decoding: $0.bytes, as: UTF8.self) } == String(StoreLayout.currentVersion))

        // The next process reads the mark and writes nothing.
        let version = mark?.version
        _ = try FunctionBinary(name: "get-entitlements").run(stdin: Self.request, environment: environment)
        #expect(try store.open().get(StoreKeys.layoutVersion)?.version == version)
    }

    @Test("a store from a newer layout is exit 78, the log names both versions, nothing is written", arguments: Backend.allCases)
    func aNewerLayoutIsRefused(backend: Backend) throws {
        let store = try TestStore(backend)
        let newer = StoreLayout.currentVersion + 1
        try store.open().set(StoreKeys.layoutVersion, Array(String(newer).utf8), expiresIn: nil)
        let environment = E2E.environment(storeURL: store.url, adminToken: "x")
        for (function, request) in [("get-entitlements", Self.request), ("process-notifications", Data(#"{"budgetSeconds":5}"#.utf8))] {
            let result = try FunctionBinary(name: function).run(stdin: request, environment: environment)
            #expect(result.exitCode == 78, "\(function): \(result.stdoutText) \(result.stderrText)")
            #expect(result.stdoutText.contains("configuration_error"), "\(function): \(result.stdoutText)")
            #expect(result.stderrText.contains("layout version \(newer)") && result.stderrText.contains("up to \(StoreLayout.currentVersion)"),
                    "\(function): the log names both versions: \(result.stderrText)")
        }
        #expect(try store.open().get(StoreKeys.layoutVersion).map { String(decoding: $0.bytes, as: UTF8.self) } == String(newer))
    }
}
