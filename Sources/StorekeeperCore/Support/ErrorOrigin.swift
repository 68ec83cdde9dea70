/// Where in Storekeeper's source an error was made (`#fileID` and `#line` at its creation),
/// so the log can say which of several places that share a code gave up. Never answered.
public struct ErrorOrigin: Hashable, Sendable, CustomStringConvertible {
    public let fileID: String
    public let line: Int

    public init(fileID: String = #fileID, line: Int = #line) {
        self.fileID = fileID
        self.line = line
    }

    public var description: String { "\(fileID):\(line)" }
}
