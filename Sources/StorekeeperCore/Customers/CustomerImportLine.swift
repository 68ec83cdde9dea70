/// One line of `import-customers`' input: a hosted service's user id and an original
/// transaction id (RevenueCat's customer export calls them `app_user_id` and
/// `original_transaction_id`), with the app when the deployment has several.
public struct CustomerImportLine: Sendable, Equatable {
    /// Where the line came from: the request's `customers` list, or the CSV `file`.
    public enum Source: String, Sendable, Codable {
        case customers
        case file
    }

    public var source: Source
    /// 1-based: the position in `customers`, or the row in the file (the header is row 1).
    public var line: Int
    public var userId: String
    public var originalTransactionId: String
    public var bundleId: String?
    /// Why the line cannot be imported as it was read (a row with too few fields), before
    /// its values are checked.
    public var problem: String?

    public init(source: Source, line: Int, userId: String, originalTransactionId: String, bundleId: String? = nil,
                problem: String? = nil) {
        self.source = source
        self.line = line
        self.userId = userId
        self.originalTransactionId = originalTransactionId
        self.bundleId = bundleId
        self.problem = problem
    }

    /// Longest user id taken: a hosted service's ids are short (RevenueCat's anonymous ids are
    /// `$RCAnonymousID:` and 32 hex digits); anything longer is a column mix-up.
    public static let maximumUserIdLength = 256

    /// Why the line cannot be imported; nil when it can. `apps` are the deployment's bundle ids.
    public func invalidity(apps: Set<String>) -> String? {
        if let problem { return problem }
        if userId.isEmpty { return "the user id is empty" }
        if userId.utf8.count > Self.maximumUserIdLength { return "the user id is longer than \(Self.maximumUserIdLength) bytes" }
        if userId.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "the user id has a control character"
        }
        if originalTransactionId.isEmpty { return "the original transaction id is empty" }
        // Apple's transaction ids are decimal numbers; anything else would be asked in vain.
        guard originalTransactionId.utf8.count <= 32, originalTransactionId.utf8.allSatisfy({ (48...57).contains($0) }) else {
            return "the original transaction id is not one of Apple's (decimal digits)"
        }
        if let bundleId, !apps.contains(bundleId) { return "the bundle id is not an app of this deployment" }
        if app(among: apps) == nil { return "the line names no bundle id, and this deployment serves several apps" }
        return nil
    }

    /// The app the line is about: its own bundle id, or the deployment's only app.
    public func app(among apps: Set<String>) -> String? {
        bundleId ?? (apps.count == 1 ? apps.first : nil)
    }

    /// What identifies the input of a run: a rerun of the same lines resumes it.
    var fingerprint: String {
        [source.rawValue, String(line), userId, originalTransactionId, bundleId ?? "", problem ?? ""].joined(separator: "\u{1F}")
    }
}
