import Foundation
import StorekeeperCore
import Testing

/// The token bucket every process calling Apple shares, on each real store. Time is passed
/// in, so the arithmetic is checked exactly; two limiters on one store stand for two processes.
@Suite struct SharedRateLimiterTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    func at(_ milliseconds: Int64) -> Date {
        start.addingTimeInterval(Double(milliseconds) / 1000)
    }

    @Test(arguments: StoreBackend.all)
    func burstThenOneTokenPerInterval(backend: StoreBackend) throws {
        let store = try backend.makeStore()
        let limiter = SharedRateLimiter(store: store, key: "appstore:ratelimit:test", requestsPerSecond: 2, burst: 2)
        #expect(try limiter.tryAcquire(now: at(0)) == .proceed)
        #expect(try limiter.tryAcquire(now: at(0)) == .proceed)
        #expect(try limiter.tryAcquire(now: at(0)) == .wait(.milliseconds(500)))
        #expect(try limiter.tryAcquire(now: at(250)) == .wait(.milliseconds(250)))
        #expect(try limiter.tryAcquire(now: at(500)) == .proceed)
        #expect(try limiter.tryAcquire(now: at(500)) == .wait(.milliseconds(500)))
        // A long quiet period refills to the burst, not beyond it.
        #expect(try limiter.tryAcquire(now: at(60_000)) == .proceed)
        #expect(try limiter.tryAcquire(now: at(60_000)) == .proceed)
        #expect(try limiter.tryAcquire(now: at(60_000)) != .proceed)
    }

    @Test(arguments: StoreBackend.all)
    func twoProcessesShareOneBudget(backend: StoreBackend) throws {
        let store = try backend.makeStore()
        let first = SharedRateLimiter(store: store, key: "appstore:ratelimit:test", requestsPerSecond: 10, burst: 1)
        let second = SharedRateLimiter(store: store, key: "appstore:ratelimit:test", requestsPerSecond: 10, burst: 1)
        var granted = 0
        // One simulated second, both asking every 10 ms: together they get what one rate
        // allows (10 a second, plus the initial token), not twice that.
        for tick in stride(from: Int64(0), to: 1000, by: 10) {
            for limiter in [first, second] where try limiter.tryAcquire(now: at(tick)) == .proceed {
                granted += 1
            }
        }
        #expect(granted == 10)
    }

    @Test(arguments: StoreBackend.all)
    func retryAfterHoldsEveryProcessBack(backend: StoreBackend) throws {
        let store = try backend.makeStore()
        let told = SharedRateLimiter(store: store, key: "appstore:ratelimit:test", requestsPerSecond: 5)
        let other = SharedRateLimiter(store: store, key: "appstore:ratelimit:test", requestsPerSecond: 5)
        #expect(try told.tryAcquire(now: at(0)) == .proceed)
        try told.holdBack(for: .seconds(3), now: at(100))
        #expect(try other.tryAcquire(now: at(200)) == .wait(.milliseconds(2900)))
        // A shorter Retry-After does not shorten the pause already set.
        try other.holdBack(for: .seconds(1), now: at(300))
        #expect(try told.tryAcquire(now: at(2000)) == .wait(.milliseconds(1100)))
        // After the pause requests resume one at a time, not in a burst.
        #expect(try other.tryAcquire(now: at(3100)) == .wait(.milliseconds(200)))
        #expect(try other.tryAcquire(now: at(3300)) == .proceed)
        #expect(try told.tryAcquire(now: at(3300)) != .proceed)
    }

    /// migrate-receipt's gate: the first call of a request needs a token, its later calls
    /// take theirs on credit, and whoever comes next waits the debt off.
    @Test(arguments: StoreBackend.all)
    func laterCallsOfARequestTakeTheirTokensOnCredit(backend: StoreBackend) throws {
        let store = try backend.makeStore()
        let limiter = SharedRateLimiter(store: store, key: "appstore:ratelimit:test", requestsPerSecond: 1)
        #expect(try limiter.tryAcquire(now: at(0)) == .proceed)
        #expect(try limiter.tryAcquire(now: at(0)) == .wait(.milliseconds(1000)), "no credit: a token must be there")
        for _ in 1...3 { #expect(try limiter.tryAcquire(now: at(0), credit: 3) == .proceed) }
        #expect(try limiter.tryAcquire(now: at(0), credit: 3) == .wait(.milliseconds(1000)), "the credit is bounded")
        #expect(try limiter.tryAcquire(now: at(0)) == .wait(.milliseconds(4000)), "the next request waits the debt off")
        // Apple's Retry-After does not pay the debt off, and credit does not pass it.
        try limiter.holdBack(for: .seconds(1), now: at(0))
        #expect(try limiter.tryAcquire(now: at(500), credit: 100) == .wait(.milliseconds(500)))
        #expect(try limiter.tryAcquire(now: at(1000)) == .wait(.milliseconds(4000)))
        #expect(try limiter.tryAcquire(now: at(5000)) == .proceed)
    }
}
