import FoundationEssentials
import StorekeeperCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The entry point each `functions/<name>/main.swift` calls: `FunctionMain.run(MyHandler.self)`.
/// A thin wrapper that hands the real process to `FunctionRunner`.
public enum FunctionMain {
    public static func run<H: FunctionHandler>(_ handler: H.Type) -> Never {
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
            clock: SystemClock(),
            input: FileDescriptorStream(descriptor: 0),
            output: FileDescriptorStream(descriptor: 1),
            errorOutput: FileDescriptorStream(descriptor: 2)
        )
        exit(runner.run())
    }
}
