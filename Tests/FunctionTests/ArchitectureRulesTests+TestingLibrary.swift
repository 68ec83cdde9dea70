import Testing

extension ArchitectureRulesTests {
    /// The test libraries stay on the test side: what the tests need lives in them, so no
    /// product module or function executable may import them (it would ship test helpers).
    static let testOnlyModules: Set<String> = ["StorekeeperTesting", "TestSupport"]

    @Test func noProductCodeImportsATestLibrary() throws {
        for file in try SourceTree.swiftFiles(under: "Sources") + SourceTree.swiftFiles(under: "functions") {
            for line in file.lines {
                let words = line.split(separator: " ").map(String.init)
                guard let importIndex = words.firstIndex(of: "import"), importIndex + 1 < words.count else { continue }
                #expect(!Self.testOnlyModules.contains(words[importIndex + 1]), "\(file.path): `\(line)`")
            }
        }
    }
}
