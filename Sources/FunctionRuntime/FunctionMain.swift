import FastCGIServer
import FoundationEssentials
import StorekeeperCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The entry point each `functions/<name>/main.swift` calls:
/// `FunctionMain.run(MyHandler.self, adapters: Adapters.init(environment:))`, naming the handler and the
/// composition that builds its adapters. A thin wrapper that hands the real process to
/// `FunctionRunner`.
public enum FunctionMain {
    public static func run<H: FunctionHandler>(_ handler: H.Type, adapters: @escaping (EnvironmentVariables) -> any FunctionAdapters) -> Never {
        // A reader that went away must become EPIPE (exit 74), not a silent kill by SIGPIPE.
        _ = signal(SIGPIPE, SIG_IGN)
        let process = ProcessInfo.processInfo
        if process.environment[RuntimeVariable.gatewayInterface] != nil {
            // httpoxy: CGI turns a `Proxy:` request header into HTTP_PROXY, which an HTTP
            // client library could take as its proxy setting.
            _ = unsetenv("HTTP_PROXY")
        }
        let runner = FunctionRunner(
            handler,
            arguments: process.arguments,
            environment: process.environment,
            clock: clock(process.environment[RuntimeVariable.fixedTime]),
            input: FileDescriptorStream(descriptor: 0),
            output: FileDescriptorStream(descriptor: 1),
            errorOutput: FileDescriptorStream(descriptor: 2),
            adapters: adapters,
            // The FastCGI convention: a server that starts the function hands it a listening
            // socket as stdin. A pipe, a file or a terminal is never one.
            standardInputIsListening: ListeningSocket.isListening(0)
        )
        exit(runner.run())
    }

    /// The system's time, with decisions pinned when STOREKEEPER_NOW says so (replays, golden
    /// examples); the real wall time, monotonic time and sleeping stay real. A value that does
    /// not parse is ignored rather than guessed at; the runner logs it.
    static func clock(_ pinned: String?) -> any TimeSource {
        guard let pinned, let date = try? RuntimeSettings.fixedTime.parse(pinned) else { return SystemTime() }
        return SystemTime(pinnedAt: date)
    }
}
