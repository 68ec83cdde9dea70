import FoundationEssentials
@testable import StorekeeperCore
import Testing

/// Decisions are taken on Apple's typed values; records keep Apple's wire spelling, so a
/// record written before the types existed still reads and decides the same.
@Suite("Entitlements: typed decisions over raw stored values")
struct TypedDecisionTests {
    /// A record as the store holds it today (keys and spellings are the stored contract).
    static func storedRecord(type: String, ownership: String, revoked: Bool) -> [UInt8] {
        let revocation = revoked ? #","revocationDate":1700000500000,"revocationReason":0"# : ""
        return Array("""
        {"originalTransactionId":"1000","lastEvent":{"id":"n-1","source":"notification","type":"REFUND","signedDate":1700000600000},\
        "transactions":{"2000":{"transactionId":"2000","originalTransactionId":"1000","productId":"com.example.pro",\
        "type":"\(type)","purchaseDate":1700000000000,"signedDate":1700000600000,"inAppOwnershipType":"\(ownership)",\
        "environment":"Sandbox"\(revocation)}}}
        """.utf8)
    }

    static func decode(_ bytes: [UInt8]) throws -> EntitlementRecord {
        try JSONDecoder().decode(EntitlementRecord.self, from: Data(bytes))
    }

    @Test func aStoredRecordOfTheOldShapeStillReadsAndDecidesOnTypedValues() throws {
        let record = try Self.decode(Self.storedRecord(type: "Non-Consumable", ownership: "PURCHASED", revoked: false))
        let facts = try #require(record.latestTransaction)
        #expect(facts.type == .nonConsumable)
        #expect(facts.inAppOwnershipType == .purchased)
        #expect(facts.environment == .sandbox)
        #expect(record.status == .lifetime)
        // Written back with the same keys and Apple's spelling.
        let written = String(decoding: try JSONEncoder().encode(record), as: UTF8.self)
        #expect(written.contains(#""type":"Non-Consumable""#))
        #expect(written.contains(#""inAppOwnershipType":"PURCHASED""#))
        #expect(written.contains(#""environment":"Sandbox""#))
        #expect(!written.contains("raw"))
    }

    @Test func aRevocationIsARefundForThePurchaserAndARevocationForTheFamily() throws {
        #expect(try Self.decode(Self.storedRecord(type: "Non-Consumable", ownership: "PURCHASED", revoked: true)).status == .refunded)
        #expect(try Self.decode(Self.storedRecord(type: "Non-Consumable", ownership: "FAMILY_SHARED", revoked: true)).status == .revoked)
    }

    @Test func aTypeAppleAddsLaterIsKeptRawAndDecidedLikeASubscription() throws {
        let record = try Self.decode(Self.storedRecord(type: "Future-Type", ownership: "SOMETHING_NEW", revoked: false))
        let facts = try #require(record.latestTransaction)
        #expect(facts.type == nil)
        #expect(facts.rawType == "Future-Type")
        #expect(facts.inAppOwnershipType == nil)
        // No expiry and no renewal: a subscription Apple set no end for.
        #expect(record.status == .active)
        let entitlement = Entitlement(record, now: Date(millisecondsSince1970: 1_700_000_700_000))
        #expect(entitlement.productType == "Future-Type")
        #expect(entitlement.ownership == "SOMETHING_NEW")
    }

    @Test func notificationTypesThatChangeNothingAreNamedByType() throws {
        for type in EntitlementEngine.notApplied {
            let event = AppleFact(id: "n", source: .notification, type: type.rawValue, signedDate: 1,
                                         transaction: nil, renewalInfo: nil)
            #expect(try EntitlementEngine.apply(event, to: nil).outcome == .ignored)
        }
        #expect(EntitlementEngine.notApplied.contains(.test))
        #expect(!EntitlementEngine.notApplied.contains(.refund))
    }
}
