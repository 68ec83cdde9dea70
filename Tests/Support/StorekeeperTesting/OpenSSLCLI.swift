import Foundation

/// Runs the `openssl` command-line tool, for generating test material and cross-checking.
public enum OpenSSLCLI {
    public static let path: String? = ["/usr/bin/openssl", "/usr/local/bin/openssl"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    public static var isAvailable: Bool { path != nil }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    /// Runs `openssl arguments...` in `directory`; throws with stderr when it fails.
    @discardableResult
    public static func run(_ arguments: [String], in directory: URL) throws -> Data {
        guard let path else { throw Failure(description: "openssl CLI not found") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Drain stderr on another thread while this one drains stdout, so neither pipe can
        // fill up and stall the child.
        let errorBox = DataBox()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            errorBox.data = errors.fileHandleForReading.readDataToEndOfFile()
        }
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        let errorData = errorBox.data
        guard process.terminationStatus == 0 else {
            throw Failure(description: "openssl \(arguments.joined(separator: " ")) failed: "
                + String(decoding: errorData, as: UTF8.self))
        }
        return outputData
    }
}

/// Written by one thread, read by another only after DispatchGroup.wait().
private final class DataBox: @unchecked Sendable {
    var data = Data()
}
