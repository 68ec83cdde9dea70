import Foundation
import Testing

/// A store written before the customer answer existed (layout 1, the fixture LegacyStoreTests
/// opens): once migrated, get-customer finds its customer by a renewal's transaction id (the
/// migration indexed what the records held) and answers the same subscriptions as before.
@Suite struct GetCustomerLegacyStoreTests {
    @Test func aRenewalsTransactionIdFindsItsCustomerInAMigratedStore() throws {
        let path = try LegacyStoreTests.copyOfTheLegacyStore()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let now = try #require(try LegacyStoreTests.answers()["now"])
        let result = try FunctionBinary(name: "get-customer").run(stdin: Data(#"{"transactionId": "3000000002"}"#.utf8),
                                                                  environment: LegacyStoreTests.environment(path, now: now))
        #expect(result.exitCode == 0, "\(result.stdoutText) \(result.stderrText)")
        let answer = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        let customer = try #require(answer["customer"] as? [String: Any], "\(answer)")
        #expect(customer["userId"] as? String == "user-1")
        let subscriptions = try #require(customer["subscriptions"] as? [String: [String: Any]])
        #expect(subscriptions.values.contains { $0["originalTransactionId"] as? String == "3000000001" })
        #expect(customer["history"] as? [Any] != nil, "a record from before the timeline has an empty one")
    }
}
