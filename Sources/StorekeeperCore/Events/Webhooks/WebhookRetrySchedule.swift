/// When a failed delivery is tried again: 5 s, 30 s, 2 min, 10 min, 1 h after the failures
/// before it, then every 6 h, each ±20 % jitter, for up to three days after the first failure;
/// after that the event is dead-lettered with its last answer.
public struct WebhookRetrySchedule: Sendable {
    /// The waits after the first, second, ... failure, in milliseconds; the last repeats.
    public static let delays: [Int64] = [5_000, 30_000, 120_000, 600_000, 3_600_000, 21_600_000]
    /// How long after its first failure an event is still retried.
    public static let window: Int64 = 3 * 86_400_000
    public static let jitter = 0.2

    /// A number in 0..<1 for the jitter (random in production, fixed in tests).
    private let unit: @Sendable () -> Double

    public init(unit: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        self.unit = unit
    }

    /// The next due time after `failures` failures (1 for the first), the first at
    /// `firstFailedAt`, the latest at `now`; nil when the event is to be dead-lettered.
    public func nextDue(failures: Int, firstFailedAt: Int64, now: Int64) -> Int64? {
        let base = Self.delays[min(max(failures, 1), Self.delays.count) - 1]
        let factor = 1 - Self.jitter + 2 * Self.jitter * unit()
        let due = now + Int64((Double(base) * factor).rounded())
        return due - firstFailedAt > Self.window ? nil : due
    }
}
