/// Which App Store Server API host answers: production or the sandbox.
public enum AppStoreAPIEnvironment: String, Sendable, Hashable, CaseIterable {
    case production = "Production"
    case sandbox = "Sandbox"
}
