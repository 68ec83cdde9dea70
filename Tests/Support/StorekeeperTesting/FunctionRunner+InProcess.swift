import FunctionRuntime
import StorekeeperCore

extension FunctionRunner {
    /// Runs `handler` in process on `stdin` and collects what a process would have written:
    /// the same runner `FunctionMain` uses, with byte buffers for the standard streams.
    /// Without `adapters`, a handler that asks for the store or HTTP gets exit 78.
    public static func run(
        _ handler: Handler.Type,
        arguments: [String] = [],
        environment: [String: String] = [:],
        stdin: [UInt8],
        clock: any TimeSource = SystemTime(),
        adapters: @escaping (EnvironmentVariables) -> any FunctionAdapters = { _ in NoAdapters() }
    ) -> FunctionRunResult {
        let output = ByteBuffer()
        let errorOutput = ByteBuffer()
        let runner = FunctionRunner(
            handler,
            arguments: [Handler.descriptor.name] + arguments,
            environment: environment,
            clock: clock,
            input: ByteBuffer(stdin),
            output: output,
            errorOutput: errorOutput,
            adapters: adapters
        )
        let exitCode = runner.run()
        return FunctionRunResult(exitCode: exitCode, stdout: output.bytes, stderr: errorOutput.bytes)
    }
}
