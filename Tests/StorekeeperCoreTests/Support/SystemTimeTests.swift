import FoundationEssentials
import StorekeeperCore
import Testing

@Suite struct SystemTimeTests {
    @Test func aPinPinsOnlyTheDecisionTime() {
        let pinned = Date(timeIntervalSince1970: 1_714_564_800)
        let time = SystemTime(pinnedAt: pinned)
        #expect(time.now() == pinned)
        #expect(abs(time.realNow().timeIntervalSince(Date())) < 60, "the real wall time is not pinned")
        let before = time.monotonic()
        time.sleep(for: .milliseconds(20))
        #expect(time.monotonic() - before >= .milliseconds(20), "monotonic time and sleeping stay real")
    }

    @Test func unpinnedDecisionsReadTheWallClock() {
        let time = SystemTime()
        #expect(abs(time.now().timeIntervalSince(Date())) < 60)
        #expect(time.pinnedAt == nil)
    }
}
