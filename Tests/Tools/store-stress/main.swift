// store-stress: one store scenario in one process, for the conformance suite's
// cross-process races and for `make bench`. See StressScenario.usage.
#if canImport(Glibc)
import Glibc
#endif
import StorekeeperCore

let arguments = Array(CommandLine.arguments.dropFirst())
if let startAt = getenv("STORE_STRESS_START_AT").flatMap({ Int64(String(cString: $0)) }) {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    let wait = startAt - (Int64(now.tv_sec) * 1_000 + Int64(now.tv_nsec) / 1_000_000)
    if wait > 0 { usleep(useconds_t(min(wait, 10_000) * 1_000)) }
}
do {
    try StressScenario.run(arguments)
} catch is StressScenario.UsageError {
    printToStandardError(StressScenario.usage)
    exit(64)
} catch let error as StoreError {
    printToStandardError("store-stress: \(error)")
    exit(error.kind == .unavailable ? 75 : error.kind == .invalidConfiguration ? 78 : 70)
} catch {
    printToStandardError("store-stress: \(error)")
    exit(70)
}

func printToStandardError(_ message: String) {
    var line = message + "\n"
    line.withUTF8 { bytes in _ = write(2, bytes.baseAddress, bytes.count) }
}
