/// What one `recover-notifications` run found in Apple's history.
public struct RecoveryReport: Codable, Sendable, Equatable {
    /// Pages read, and notifications on them.
    public var pages = 0
    public var fetched = 0
    /// Missing until now: stored and queued, the worker applies them next.
    public var queued = 0
    /// Received before (by the webhook or an earlier recovery): nothing changed.
    public var alreadyKnown = 0
    /// Verified, but for an environment this deployment does not accept.
    public var otherEnvironment = 0
    /// Refused by verification, by error code.
    public var invalid: [String: Int] = [:]
    /// How Apple's first delivery attempt of each fetched notification went.
    public var firstSendAttemptResults: [String: Int] = [:]
    /// This run continued an unfinished one.
    public var resumed = false
    /// The saved page had expired at Apple, so the question was asked again from its first page.
    public var restartedFromFirstPage = false
    /// The time budget ran out; the next run resumes at the saved page.
    public var outOfTime = false
    /// Apple's error when a page could not be read.
    public var stoppedBy: String?

    public init() {}

    /// One line per first-attempt result seen, saying what it means for the operator.
    public var explanations: [String: String] {
        Dictionary(uniqueKeysWithValues: firstSendAttemptResults.keys.map {
            ($0, SendAttemptResult.hint(forRaw: $0) ?? "delivered: your server answered 200 at the first attempt")
        })
    }
}
