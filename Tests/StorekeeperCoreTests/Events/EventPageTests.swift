@testable import StorekeeperCore
import StorekeeperTesting
import Testing

/// `EventLog.page`, list-events' logic, in process on MemoryStore: what a page holds, where
/// the next one starts, the bound on the scan, and gaps left by trimming.
@Suite struct EventPageTests {
    static func event(_ number: Int, type: EventType = .renewal, user: String = "user-1", environment: String = "Sandbox",
                      recordedAt: Int64 = 1_000) -> Event {
        Event(id: "evt-\(number)", type: type.rawValue, occurredAt: recordedAt, recordedAt: recordedAt, environment: environment,
              customerId: user, userId: user, source: "notification")
    }

    /// A log of `events` appended in order, each at its customer's version.
    static func log(_ events: [Event]) throws -> EventLog {
        let log = EventLog(store: MemoryStore())
        for event in events {
            let version = try log.version(ofCustomer: event.customerId ?? "")
            guard case .appended = try log.append(event, expectedVersion: version) else {
                throw StoreError(.failed, "\(event.id) was not appended")
            }
        }
        return log
    }

    static func sequences(_ page: EventPage) -> [Int64] { page.events.map(\.sequence) }

    @Test func aFullPageEndsAtItsLastEventAndTheLastPageAtTheLog() throws {
        let log = try Self.log((1...7).map { Self.event($0) })
        let first = try log.page(after: 0, limit: 3, filter: EventFilter(), scanLimit: 1_000)
        #expect(Self.sequences(first) == [1, 2, 3] && first.next == 3 && first.oldest == 1 && !first.gap)
        let last = try log.page(after: 6, limit: 3, filter: EventFilter(), scanLimit: 1_000)
        #expect(Self.sequences(last) == [7] && last.next == 7)
        let beyond = try log.page(after: 7, limit: 3, filter: EventFilter(), scanLimit: 1_000)
        #expect(beyond.events.isEmpty && beyond.next == 7 && !beyond.gap)
    }

    @Test func everyFilterGivenMustMatch() throws {
        let log = try Self.log([
            Self.event(1, type: .refund, user: "a"), Self.event(2, type: .renewal, user: "a"),
            Self.event(3, type: .refund, user: "b"), Self.event(4, type: .refund, user: "a", environment: "Production"),
            Self.event(5, type: .expiration, user: "a"),
        ])
        let filter = EventFilter(types: ["REFUND", "EXPIRATION"], userId: "a", environment: "Sandbox")
        let page = try log.page(after: 0, limit: 10, filter: filter, scanLimit: 1_000)
        #expect(Self.sequences(page) == [1, 5] && page.next == 5)
        // Filled before the log ends: next is the last one kept, not the last one read.
        let one = try log.page(after: 0, limit: 1, filter: EventFilter(types: ["REFUND"]), scanLimit: 1_000)
        #expect(Self.sequences(one) == [1] && one.next == 1)
        let next = try log.page(after: 1, limit: 1, filter: EventFilter(types: ["REFUND"]), scanLimit: 1_000)
        #expect(Self.sequences(next) == [3] && next.next == 3)
    }

    @Test func theScanStopsAtItsBoundAndSaysWhere() throws {
        let log = try Self.log((1...250).map { Self.event($0) } + [Self.event(251, type: .refund)])
        let refunds = EventFilter(types: ["REFUND"])
        let bounded = try log.page(after: 0, limit: 5, filter: refunds, scanLimit: 120)
        #expect(bounded.events.isEmpty && bounded.next == 120)
        let again = try log.page(after: 120, limit: 5, filter: refunds, scanLimit: 120)
        #expect(again.events.isEmpty && again.next == 240)
        let found = try log.page(after: 240, limit: 5, filter: refunds, scanLimit: 120)
        #expect(Self.sequences(found) == [251] && found.next == 251)
    }

    @Test func aReaderOlderThanTheOldestEventKeptIsToldOfTheGap() throws {
        let log = try Self.log((1...4).map { Self.event($0, recordedAt: 10) } + (5...6).map { Self.event($0, recordedAt: 5_000) })
        #expect(try log.trim(olderThanDays: 1, now: 86_400_000 + 100) == 4)
        let behind = try log.page(after: 0, limit: 10, filter: EventFilter(), scanLimit: 1_000)
        #expect(Self.sequences(behind) == [5, 6] && behind.gap && behind.oldest == 5)
        #expect(try !log.page(after: 4, limit: 10, filter: EventFilter(), scanLimit: 1_000).gap)
        // The gap shows even when the filter keeps nothing of what follows it.
        #expect(try log.page(after: 2, limit: 10, filter: EventFilter(userId: "nobody"), scanLimit: 1_000).gap)
        #expect(try log.trim(olderThanDays: 0, now: 10_000) == 2)
        let emptied = try log.page(after: 5, limit: 10, filter: EventFilter(), scanLimit: 1_000)
        #expect(emptied.events.isEmpty && emptied.gap && emptied.oldest == nil && emptied.next == 5)
        #expect(try !log.page(after: 6, limit: 10, filter: EventFilter(), scanLimit: 1_000).gap)
    }
}
