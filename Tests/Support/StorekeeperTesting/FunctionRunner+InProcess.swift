import FunctionRuntime
import StorekeeperCore

extension FunctionRunner {
    /// Runs `handler` in process on `stdin` and collects what a process would have written:
    /// the same runner `FunctionMain` uses, with byte buffers for the standard streams.
    public static func run(
        _ handler: Handler.Type,
        arguments: [String] = [],
        environment: [String: String] = [:],
        stdin: [UInt8],
        clock: any TimeSource = SystemTime()
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
            errorOutput: errorOutput
        )
        let exitCode = runner.run()
        return FunctionRunResult(exitCode: exitCode, stdout: output.bytes, stderr: errorOutput.bytes)
    }
}
