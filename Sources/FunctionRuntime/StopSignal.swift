import StorekeeperCore
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// For a handler that loops until told to stop (`deliver-events {"follow": true}`): SIGTERM
/// or SIGINT ends the loop after the step in flight, as the FastCGI door finishes the request
/// in flight. The handler only sets a flag; the loop looks at it between steps and while it
/// sleeps, in slices short enough that a stop is noticed within a tenth of a second.
public enum StopSignal {
    private static let requested = Atomic<Bool>(false)

    /// Installs the handlers (once per process is enough; again is harmless).
    public static func install() {
        for signalNumber in [SIGTERM, SIGINT] {
            _ = signal(signalNumber) { _ in StopSignal.requested.store(true, ordering: .relaxed) }
        }
    }

    public static var isRequested: Bool { requested.load(ordering: .relaxed) }

    /// Sleeps up to `duration`; true when a stop was asked for meanwhile (or before).
    public static func sleep(_ duration: Duration, clock: any TimeSource) -> Bool {
        let end = clock.monotonic() + duration
        while !isRequested {
            let left = end - clock.monotonic()
            guard left > .zero else { return false }
            clock.sleep(for: min(left, .milliseconds(100)))
        }
        return true
    }
}
