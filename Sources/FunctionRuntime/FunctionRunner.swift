import StorekeeperCore

/// Runs one handler against injected arguments, environment, stdin, stdout and stderr, and
/// returns the exit code. `FunctionMain.run` wraps it around the real process; tests run it
/// in process with byte arrays (StorekeeperTesting's `FunctionRunner.run(_:stdin:)`).
///
/// The front door is chosen once per process for CGI (`GATEWAY_INTERFACE` set) and per
/// document otherwise, so an NDJSON batch may mix direct requests and HTTP events. For
/// several answers the exit code is the largest of theirs: a batch with any retryable
/// failure asks to be retried, any configuration error outranks the rest.
public struct FunctionRunner<Handler: FunctionHandler> {
    public let arguments: [String]
    public let environment: [String: String]
    public let clock: any TimeSource
    private let input: any InputSource
    private let output: any OutputSink
    private let errorOutput: any OutputSink
    private let adapters: (EnvironmentVariables) -> any FunctionAdapters
    /// True when the process's stdin is a listening socket: the FastCGI convention.
    private let standardInputIsListening: Bool

    /// `adapters` builds the process's adapters from its environment (the composition
    /// module's `Adapters.init`); it is called once, when the handler is built.
    /// `standardInputIsListening` (or `--fastcgi ADDRESS` among the arguments) selects the
    /// FastCGI door; `FunctionMain` tells it from file descriptor 0.
    public init(
        _ handler: Handler.Type,
        arguments: [String],
        environment: [String: String],
        clock: any TimeSource,
        input: any InputSource,
        output: any OutputSink,
        errorOutput: any OutputSink,
        adapters: @escaping (EnvironmentVariables) -> any FunctionAdapters,
        standardInputIsListening: Bool = false
    ) {
        self.adapters = adapters
        self.standardInputIsListening = standardInputIsListening
        self.arguments = arguments
        self.environment = environment
        self.clock = clock
        self.input = input
        self.output = output
        self.errorOutput = errorOutput
    }

    /// Answers `--help`, or every request on the input; returns the process exit code.
    public func run() -> Int32 {
        let descriptor = Handler.descriptor
        if arguments.count > 1, arguments[1] == "--help" || arguments[1] == "-h" {
            do {
                try output.write(Array(HelpText.render(descriptor).utf8))
                return 0
            } catch {
                return RequestLoop<Handler>.ioFailureExitCode
            }
        }
        let isCGI = environment[RuntimeVariable.gatewayInterface].map { !$0.isEmpty } ?? false
        // Under CGI, HTTP_* variables are the caller's request headers, not configuration:
        // the handler never sees them as such (they reach it as headers).
        let variables = EnvironmentVariables(isCGI ? environment.filter { !$0.key.hasPrefix("HTTP_") } : environment)
        let requestedLevel = variables.optional(RuntimeVariable.logLevel)
        let level = (try? variables.value(RuntimeSettings.logLevel)) ?? .info
        let errorOutput = self.errorOutput
        // A log line that cannot be written is dropped: stderr failing must not stop an answer.
        let log = Logger(function: descriptor.name, clock: clock, minimumLevel: level, emit: { try? errorOutput.write($0) })
        if let requestedLevel, LogLevel(name: requestedLevel) == nil {
            log.warning("unknown_log_level", ["variable": RuntimeVariable.logLevel, "value": requestedLevel])
        }
        if let pinned = variables.optional(RuntimeVariable.fixedTime) {
            // Never silent: a pinned clock in production would be a serious mistake.
            log.warning("clock_pinned", ["variable": RuntimeVariable.fixedTime, "value": pinned])
        }
        let loop = RequestLoop<Handler>(descriptor: descriptor, environment: variables, clock: clock, log: log, output: output,
                                        adapters: adapters, arguments: Array(arguments.dropFirst()))
        if let fastCGI = fastCGISource() {
            return loop.serveFastCGI(fastCGI)
        }
        return loop.serve(input: input, cgiEnvironment: isCGI ? environment : nil)
    }

    /// `--fastcgi ADDRESS` first (an address with no value is an empty one, refused when
    /// opened), then a listening stdin; nil for every other door.
    private func fastCGISource() -> FastCGISource? {
        if let index = arguments.firstIndex(of: "--fastcgi"), index > 0 {
            return .address(index + 1 < arguments.count ? arguments[index + 1] : "")
        }
        return standardInputIsListening ? .standardInput : nil
    }
}
