import Foundation
import Testing

/// Entitlements is what the orchestrators build on; it must not lean back on one of them.
/// Reconciliation uses Entitlements, so Entitlements names no type Reconciliation declares.
@Suite("Entitlements: no cycle with Reconciliation")
struct EntitlementsLayeringTests {
    static let core = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/StorekeeperCore")

    static func sources(in folder: String) throws -> [(name: String, text: String)] {
        let directory = core.appendingPathComponent(folder)
        return try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".swift") }.sorted()
            .map { ($0, try String(contentsOf: directory.appendingPathComponent($0), encoding: .utf8)) }
    }

    static func declaredTypes(in text: String) -> Set<String> {
        // Top-level declarations only: a nested `Outcome` is its owner's, not a module name.
        let pattern = try! NSRegularExpression(
            pattern: #"^(?:(?:public|internal|package|final|indirect)\s+)*(?:struct|class|enum|protocol|actor)\s+([A-Z][A-Za-z0-9]*)"#,
            options: .anchorsMatchLines)
        let range = NSRange(text.startIndex..., in: text)
        return Set(pattern.matches(in: text, range: range).compactMap { Range($0.range(at: 1), in: text).map { String(text[$0]) } })
    }

    @Test func entitlementsNamesNoReconciliationType() throws {
        let reconciliation = try Self.sources(in: "Reconciliation")
        let types = reconciliation.reduce(into: Set<String>()) { $0.formUnion(Self.declaredTypes(in: $1.text)) }
        #expect(types.contains("Reconciler"), "the scan found Reconciliation's types")
        for file in try Self.sources(in: "Entitlements") {
            for type in types {
                let uses = try NSRegularExpression(pattern: "\\b\(type)\\b")
                let found = uses.firstMatch(in: file.text, range: NSRange(file.text.startIndex..., in: file.text)) != nil
                #expect(!found, "Entitlements/\(file.name) names \(type) from Reconciliation")
            }
        }
    }
}
