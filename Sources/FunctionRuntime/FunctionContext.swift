import StorekeeperCore

/// What a handler gets when it is built: the environment (read once), the clock every
/// check is made against, and a logger that already knows the function's name.
public struct FunctionContext {
    public let environment: EnvironmentVariables
    public let clock: any Clock
    public let log: Logger

    public init(environment: EnvironmentVariables, clock: any Clock, log: Logger) {
        self.environment = environment
        self.clock = clock
        self.log = log
    }
}
