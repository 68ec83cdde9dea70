import FoundationEssentials
@testable import StorekeeperCore
import Testing

/// `EntitlementRecord.status(at:)` is the one place a status is derived: get-entitlements
/// (`Entitlement`), reconciliation's corrections and its needs-attention selection all ask it.
@Suite("Entitlements: one status function for every caller")
struct StatusDerivationTests {
    static func record(_ play: (inout LifecycleSimulator) -> Void) throws -> (EntitlementRecord, Int64) {
        var simulator = LifecycleSimulator()
        play(&simulator)
        var record: EntitlementRecord?
        for event in simulator.events {
            record = try EntitlementEngine.apply(event, to: record).record
        }
        return (try #require(record), simulator.now)
    }

    static let day: Int64 = 86_400_000

    @Test func theClockMovesAnActivePeriodOnToExpiredOrGrace() throws {
        let (active, signedAt) = try Self.record { $0.subscribe() }
        #expect(active.status(at: nil) == .active)
        let later = signedAt + 31 * Self.day
        #expect(active.status(at: later) == .expired)
        #expect(Entitlement(active, now: Date(millisecondsSince1970: later)).status == .expired)

        let (grace, graceSignedAt) = try Self.record { $0.subscribe(); $0.failBilling(withGrace: true) }
        #expect(grace.status(at: graceSignedAt) == .grace)
        let afterGrace = try #require(grace.gracePeriodEnd) + 1
        #expect(grace.status(at: afterGrace) == .billingRetry)
        #expect(Entitlement(grace, now: Date(millisecondsSince1970: afterGrace)).gracePeriodExpiresDate == grace.gracePeriodEnd)
    }

    @Test func theClockNeverMovesAStatusBack() throws {
        let (expired, signedAt) = try Self.record { $0.subscribe(); $0.setAutoRenew(false); $0.expire() }
        #expect(expired.status(at: nil) == .expired)
        // A clock behind what Apple signed (STOREKEEPER_NOW pinned in the past) changes nothing.
        #expect(expired.status(at: signedAt - 40 * Self.day) == .expired)
    }

    /// Every caller answers what the one function says, for each lifecycle and instant.
    @Test func everyCallerAgreesWithTheOneFunction() throws {
        let plays: [(inout LifecycleSimulator) -> Void] = [
            { $0.subscribe() },
            { $0.subscribe(); $0.renew() },
            { $0.subscribe(); $0.failBilling(withGrace: true) },
            { $0.subscribe(); $0.failBilling(withGrace: false) },
            { $0.subscribe(); $0.refund() },
            { $0.subscribe(); $0.setAutoRenew(false); $0.expire() },
        ]
        for play in plays {
            let (record, signedAt) = try Self.record(play)
            for offset in [0, 1, 10, 29, 31, 45, 120].map({ Int64($0) * Self.day }) {
                let now = signedAt + offset
                let status = record.status(at: now)
                #expect(Entitlement(record, now: Date(millisecondsSince1970: now)).status == status)
                let attention = Reconciler.needsAttention(record, now: now)
                switch status {
                case .active, .grace, .billingRetry: #expect(attention)
                case .refunded, .revoked, .lifetime: #expect(!attention)
                case .expired: break
                }
            }
        }
    }
}
