import FoundationEssentials
@testable import StorekeeperCore
import Testing

@Suite("Notifications: typed priority, arrival and API environment")
struct NotificationTypingTests {
    @Test func refundsAndRevocationsAreQueuedFirst() {
        #expect(NotificationInbox.priority(of: .refund) == 0)
        #expect(NotificationInbox.priority(of: .revoke) == 0)
        #expect(NotificationInbox.priority(of: .didRenew) == 1)
        // A type Apple adds later is not urgent by default.
        #expect(NotificationInbox.priority(of: nil) == 1)
    }

    /// The values `via` has actually been written with: the store's contract.
    @Test func arrivalIsStoredAsItAlwaysWasWritten() throws {
        #expect(NotificationArrival.allCases.map(\.rawValue) == ["webhook", "recovery"])
        #expect(NotificationArrival(rawValue: "history") == nil)
    }

    @Test func theAPIEnvironmentIsTheSubsetOfEnvironmentsWithAServer() {
        for environment in Environment.allCases {
            let api = AppStoreAPIEnvironment(environment)
            #expect((api != nil) == environment.isSignedByApple)
            #expect(api.map(\.environment) == (api == nil ? nil : environment))
            #expect(api.map(\.rawValue) == (api == nil ? nil : environment.rawValue))
        }
        #expect(SignedDataVerifier.unsignedEnvironments == [.xcode, .localTesting])
    }
}
