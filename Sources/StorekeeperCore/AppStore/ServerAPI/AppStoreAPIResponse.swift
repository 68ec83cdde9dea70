/// An App Store Server API answer: the decoded model, which environment answered (after a
/// sandbox fallback it is the sandbox), and the body as received (so callers can pass Apple's
/// JSON on with fields this version does not model).
public struct AppStoreAPIResponse<Model: Sendable>: Sendable {
    public let value: Model
    public let environment: AppStoreAPIEnvironment
    public let body: [UInt8]
    /// HTTP attempts this answer took, all environments included.
    public let attempts: Int

    public init(value: Model, environment: AppStoreAPIEnvironment, body: [UInt8], attempts: Int) {
        self.value = value
        self.environment = environment
        self.body = body
        self.attempts = attempts
    }
}
