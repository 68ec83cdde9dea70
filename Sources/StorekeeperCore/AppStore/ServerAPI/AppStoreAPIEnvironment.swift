/// Which App Store Server API host answers: production or the sandbox. The two environments
/// of `Environment` that have a server; Xcode and LocalTesting data has none to ask.
public enum AppStoreAPIEnvironment: String, Sendable, Hashable, CaseIterable {
    case production = "Production"
    case sandbox = "Sandbox"

    /// The API that answers for data of `environment`; nil for Xcode and LocalTesting.
    public init?(_ environment: Environment) {
        switch environment {
        case .production: self = .production
        case .sandbox: self = .sandbox
        case .xcode, .localTesting: return nil
        }
    }

    /// The same environment as signed data names it.
    public var environment: Environment {
        switch self {
        case .production: .production
        case .sandbox: .sandbox
        }
    }
}
