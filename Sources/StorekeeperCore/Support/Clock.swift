import FoundationEssentials

/// The time every check is made against. Verification never reads the wall clock itself,
/// so tests pin the time and fixtures never expire.
public protocol Clock: Sendable {
    func now() -> Date
}

/// The wall clock, for production.
public struct SystemClock: Clock {
    public init() {}
    public func now() -> Date { Date() }
}

/// A clock stopped at one instant, for tests and for `--at` style replays.
public struct FixedClock: Clock {
    public let instant: Date
    public init(_ instant: Date) { self.instant = instant }
    public func now() -> Date { instant }
}
