import StorekeeperCore

/// What a handler gets when it is built: the environment (read once), the time source every
/// check is made against, a logger that already knows the function's name, and the
/// adapters (store, HTTP) the process was composed with, opened only when the handler first
/// asks for them.
public struct FunctionContext {
    public let environment: EnvironmentVariables
    public let clock: any TimeSource
    public let log: Logger
    public let adapters: any FunctionAdapters
    /// The command line after the program's name, for the few functions an operator runs by
    /// hand with options (`doctor --text`); the request itself always comes on stdin.
    public let arguments: [String]

    public init(environment: EnvironmentVariables, clock: any TimeSource, log: Logger, adapters: any FunctionAdapters,
                arguments: [String] = []) {
        self.environment = environment
        self.clock = clock
        self.log = log
        self.adapters = adapters
        self.arguments = arguments
    }
}
