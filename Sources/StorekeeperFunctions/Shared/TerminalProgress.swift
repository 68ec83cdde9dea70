import FoundationEssentials
import StorekeeperCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A progress line for a person at a terminal: rewritten in place on stderr, only when stderr
/// is a terminal (under cron or a web server it is a log, and gets JSON lines only).
struct TerminalProgress {
    let label: String
    private let time: any TimeSource
    private let started: Duration
    private let enabled: Bool

    init(label: String, time: any TimeSource) {
        self.label = label
        self.time = time
        started = time.monotonic()
        enabled = isatty(STDERR_FILENO) == 1
    }

    /// "reconcile: 120/400, 2.0/s, about 2 min 20 s left".
    func update(done: Int, total: Int) {
        guard enabled else { return }
        let elapsed = Double((time.monotonic() - started).wholeMilliseconds) / 1000
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        var line = "\r\(label): \(done)/\(total)"
        if rate > 0 {
            let left = Int((Double(total - done) / rate).rounded())
            line += ", \(Int(rate * 10) / 10).\(Int(rate * 10) % 10)/s, about \(left / 60) min \(left % 60) s left"
        }
        write(line + "\u{1B}[K")
    }

    /// Ends the line, so what follows starts on a fresh one.
    func finish() {
        guard enabled else { return }
        write("\n")
    }

    private func write(_ text: String) {
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { systemWrite(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
}

/// The C library's write(2), whichever C library this is.
private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}
