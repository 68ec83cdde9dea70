import FunctionRuntime
import StorekeeperCore
import Testing

/// The one place a StoreError becomes an answer: by its disposition only, and with nothing of
/// its reason (paths, hosts, the library's words) in what the caller sees.
@Suite struct StoreFailureAnswerTests {
    static let reason = "step commit: database or disk is full (SQLite result code 13) at /srv/var/storekeeper.db, Redis at 10.0.0.5:6379"

    @Test(arguments: [StoreError.Kind.unavailable, .full, .readOnly, .corrupt, .failed])
    func everyStoreFailureButConfigurationIsRetryLater(_ kind: StoreError.Kind) {
        let answer = FunctionError(storeFailure: StoreError(kind, Self.reason))
        #expect(answer.disposition == .retryLater && answer.disposition.httpStatus == 503 && answer.disposition.exitCode == 75)
        #expect(answer.code == "store_unavailable")
        #expect(answer.message == "the store is unavailable; retry later")
    }

    @Test func theStoresConfigurationIsExit78WithoutDetail() {
        let answer = FunctionError(storeFailure: StoreError(.invalidConfiguration, Self.reason))
        #expect(answer.disposition == .configuration && answer.disposition.exitCode == 78)
        #expect(answer.code == "configuration_error")
        #expect(answer.message.contains("STORE_URL"))
        for detail in ["SQLite", "13", "/srv", "10.0.0.5", "6379", "Redis"] {
            #expect(!answer.message.contains(detail), "\(answer.message)")
        }
    }
}
