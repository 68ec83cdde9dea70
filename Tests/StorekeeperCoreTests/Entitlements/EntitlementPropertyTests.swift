import StorekeeperCore
import Testing

@Suite("Entitlement engine: order and duplicates never change the outcome")
struct EntitlementPropertyTests {
    static func applyAll(_ events: [EntitlementEvent]) throws -> EntitlementRecord? {
        var record: EntitlementRecord?
        for event in events {
            record = try EntitlementEngine.apply(event, to: record).record
        }
        return record
    }

    @Test(arguments: 0..<40)
    func everyPermutationWithDuplicatesEndsLikeInOrderDelivery(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed &* 7919 &+ 17)
        var simulator = LifecycleSimulator()
        simulator.playRandomly(notifications: Int.random(in: 4...18, using: &generator), using: &generator)
        let inOrder = try #require(try Self.applyAll(simulator.events))

        for _ in 0..<25 {
            var delivered = simulator.events
            for _ in 0..<Int.random(in: 0...simulator.events.count, using: &generator) {
                if let duplicate = simulator.events.randomElement(using: &generator) { delivered.append(duplicate) }
            }
            delivered.shuffle(using: &generator)
            let shuffled = try Self.applyAll(delivered)
            #expect(shuffled == inOrder, "seed \(seed): \(delivered.map(\.id))")
        }
    }

    @Test func applyingTheSameEventTwiceIsADuplicate() throws {
        var simulator = LifecycleSimulator()
        simulator.subscribe()
        let first = try EntitlementEngine.apply(simulator.events[0], to: nil)
        #expect(first.outcome == .applied)
        let second = try EntitlementEngine.apply(simulator.events[0], to: first.record)
        #expect(second.outcome == .duplicate)
        #expect(second.record == first.record)
    }

    @Test func aLateRenewalAfterExpiryIsStale() throws {
        var simulator = LifecycleSimulator()
        simulator.subscribe()
        simulator.renew()
        simulator.setAutoRenew(false)
        simulator.expire()
        let inOrder = try #require(try Self.applyAll(simulator.events))
        #expect(inOrder.status == .expired)
        // The DID_RENEW arrives again, late: it must not bring the subscription back.
        let late = try EntitlementEngine.apply(simulator.events[1], to: inOrder)
        #expect(late.outcome == .stale || late.outcome == .duplicate)
        #expect(late.record?.status == .expired)
    }
}
