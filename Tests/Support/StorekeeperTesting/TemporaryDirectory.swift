import Foundation

/// A throwaway temporary directory.
public func makeTemporaryDirectory(_ label: String) throws -> URL {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("storekeeper-tests-\(label)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

public func removeTemporaryDirectory(_ url: URL) {
    try? FileManager.default.removeItem(at: url)
}
