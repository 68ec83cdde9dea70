import Foundation
import FunctionRuntime
import StorekeeperComposition
import StorekeeperCore
import Testing

/// The runtime (front doors, framing, logs) knows no adapter; the composition module builds
/// them from the settings, on first use, and each function's main.swift names it.
@Suite("Composition: who builds the adapters")
struct CompositionTests {
    private static let adapterModules = ["SQLiteStore", "RedisStore", "HTTPTransport"]

    @Test func theRuntimeImportsNoAdapter() throws {
        let folder = FunctionBinary.repositoryRoot.appendingPathComponent("Sources/FunctionRuntime")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
        #expect(!files.isEmpty)
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for module in Self.adapterModules {
                #expect(!text.contains("import \(module)"), "Sources/FunctionRuntime/\(file) imports \(module)")
            }
        }
    }

    @Test func everyFunctionIsComposedInItsMain() throws {
        for name in FunctionBinary.functionNames {
            let main = FunctionBinary.repositoryRoot.appendingPathComponent("functions/\(name)/main.swift")
            let text = try String(contentsOf: main, encoding: .utf8)
            #expect(text.contains("adapters: Adapters.init(environment:)"), "functions/\(name)/main.swift")
        }
    }

    @Test func theStoreIsOpenedOnFirstUseAndThenKept() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("composition-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("store.db").path
        let adapters = Adapters(environment: EnvironmentVariables(["STORE_URL": "sqlite:\(path)"]))
        #expect(!FileManager.default.fileExists(atPath: path), "built before it was asked for")
        let store = try adapters.store()
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(try adapters.store() === store)
    }

    @Test func aMalformedStoreURLIsAConfigurationError() throws {
        let adapters = Adapters(environment: EnvironmentVariables(["STORE_URL": "postgres://db"]))
        let error = try #require(throws: StoreError.self) { try adapters.store() }
        #expect(error.disposition == .configuration)
    }

    @Test func aRuntimeComposedWithoutAdaptersRefusesTheStore() throws {
        let error = try #require(throws: StoreError.self) { try NoAdapters().store() }
        #expect(error.disposition == .configuration)
    }
}
