import Foundation

/// Scratch files for this test process, under one folder removed when the process exits.
enum TestDirectory {
    static let root: String = {
        let path = NSTemporaryDirectory() + "storekeeper-kv-tests-\(getpid())"
        // A C function pointer cannot capture: the handler reads the global `root` instead.
        atexit { try? FileManager.default.removeItem(atPath: TestDirectory.root) }
        return path
    }()

    /// A path named `file` inside a new folder that does not exist yet.
    static func newPath(_ file: String) -> String {
        "\(root)/\(UUID().uuidString)/\(file)"
    }

    /// A new, existing, empty folder.
    static func newFolder() throws -> String {
        let path = "\(root)/\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
