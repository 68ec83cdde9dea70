import Foundation
import Testing
@testable import StorekeeperCore

@Suite("Receipt payload reader")
struct AppReceiptTests {
    @Test func readsTheAppFieldsAndOnePurchase() throws {
        let receipt = try AppReceipt(payload: try ReceiptFixtures.payload("receipt-single.p7"))
        #expect(receipt.receiptType == .production)
        #expect(receipt.receiptType?.environment == .production)
        #expect(receipt.bundleId == "com.example.storekeeper")
        #expect(receipt.appVersion == "42")
        #expect(receipt.originalAppVersion == "1.0")
        #expect(receipt.opaqueValue == [0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77])
        #expect(receipt.sha1Hash.count == 20)
        #expect(receipt.creationDate == ReceiptFixtures.date("2026-05-31T12:00:00Z"))
        #expect(receipt.expirationDate == nil)
        #expect(receipt.inAppPurchases == [InAppPurchaseReceipt(
            quantity: 1, productId: "com.example.pro.monthly", transactionId: "1000000000000001",
            originalTransactionId: "1000000000000001",
            purchaseDate: ReceiptFixtures.date("2026-04-01T10:00:00Z"),
            originalPurchaseDate: ReceiptFixtures.date("2026-04-01T10:00:00Z"),
            expiresDate: ReceiptFixtures.date("2026-05-01T10:00:00Z"), cancellationDate: nil,
            webOrderLineItemId: 1_000_000_000_000_101, isTrialPeriod: true, isInIntroOfferPeriod: false,
            promotionalOfferId: nil)])
    }

    @Test func readsEveryPurchaseOfSeveral() throws {
        let receipt = try AppReceipt(payload: try ReceiptFixtures.payload("receipt-several.p7"))
        #expect(receipt.receiptType == .productionSandbox)
        #expect(receipt.receiptType?.environment == .sandbox)
        let purchases = receipt.inAppPurchases.sorted { $0.transactionId < $1.transactionId }
        #expect(purchases.map(\.transactionId) == ["1000000000000001", "1000000000000002", "1000000000000003", "1000000000000004"])
        #expect(receipt.originalTransactionIds == ["1000000000000001", "1000000000000003", "1000000000000004"])
        let renewal = purchases[1]
        #expect(renewal.originalTransactionId == "1000000000000001")
        #expect(renewal.expiresDate == ReceiptFixtures.date("2026-06-01T10:00:00Z"))
        let lifetime = purchases[2]
        #expect(lifetime.productId == "com.example.lifetime")
        #expect(lifetime.expiresDate == nil)
        let refunded = purchases[3]
        #expect(refunded.quantity == 2)
        #expect(refunded.cancellationDate == ReceiptFixtures.date("2026-03-02T09:00:00Z"))
    }

    @Test func aReceiptWithoutPurchases() throws {
        let receipt = try AppReceipt(payload: try ReceiptFixtures.payload("receipt-no-purchases.p7"))
        #expect(receipt.inAppPurchases.isEmpty)
        #expect(receipt.originalTransactionIds.isEmpty)
    }

    @Test func everyTruncationOfAPayloadIsAFormatErrorNeverACrash() throws {
        let payload = try ReceiptFixtures.payload("receipt-several.p7")
        for length in 0..<payload.count {
            let error = #expect(throws: ReceiptError.self) { try AppReceipt(payload: Array(payload.prefix(length))) }
            #expect(error?.kind == .invalidReceiptFormat)
        }
    }

    @Test func everySingleByteFlipIsAnswered() throws {
        // Not a property the reader can promise (a flipped letter of a product id still
        // reads), only that every answer is a receipt or a typed error.
        let payload = try ReceiptFixtures.payload("receipt-single.p7")
        var refused = 0
        for index in payload.indices {
            var mutated = payload
            mutated[index] ^= 0xFF
            do { _ = try AppReceipt(payload: mutated) } catch { refused += 1 }
        }
        #expect(refused > payload.count / 4)
    }

    @Test(arguments: [
        ("trailing bytes", [0x31, 0x00, 0x00]),
        ("not a SET", [0x30, 0x00]),
        ("indefinite length", [0x31, 0x80, 0x00, 0x00]),
        ("non-minimal length", [0x31, 0x81, 0x05, 0x30, 0x03, 0x02, 0x01, 0x02]),
        ("length past the end", [0x31, 0x84, 0x7F, 0xFF, 0xFF, 0xFF]),
        ("multi-byte tag", [0x1F, 0x81, 0x00]),
        ("attribute with two fields", [0x31, 0x08, 0x30, 0x06, 0x02, 0x01, 0x02, 0x02, 0x01, 0x01]),
        ("empty SET: no bundle id", [0x31, 0x00]),
        ("non-minimal INTEGER", [0x31, 0x0B, 0x30, 0x09, 0x02, 0x02, 0x00, 0x02, 0x02, 0x01, 0x01, 0x04, 0x00]),
    ] as [(String, [UInt8])])
    func malformedPayloads(_ name: String, _ bytes: [UInt8]) {
        let error = #expect(throws: ReceiptError.self, "\(name)") { try AppReceipt(payload: bytes) }
        #expect(error?.kind == .invalidReceiptFormat)
    }

    @Test func deepNestingIsBoundedByTheLayout() {
        // 10,000 nested SETs: the reader never recurses into what the layout does not name.
        var bytes: [UInt8] = []
        for _ in 0..<10_000 { bytes = [0x31, 0x84] + withUnsafeBytes(of: UInt32(bytes.count).bigEndian, Array.init) + bytes }
        #expect(throws: ReceiptError.self) { try AppReceipt(payload: bytes) }
    }

    @Test(arguments: [
        ("2026-05-31T12:00:00Z", 1_780_228_800.0),
        ("2026-05-31T12:00:00.5Z", 1_780_228_800.5),
        ("2026-05-31T14:00:00+02:00", 1_780_228_800.0),
        ("2024-02-29T00:00:00Z", 1_709_164_800.0),
    ])
    func datesInRFC3339(_ text: String, _ seconds: Double) {
        #expect(ReceiptDate.parse(text) == Date(timeIntervalSince1970: seconds))
    }

    @Test(arguments: ["", "2026-05-31", "2026-05-31 12:00:00Z", "2026-02-30T00:00:00Z", "2026-05-31T24:00:00Z",
                      "2026-05-31T12:00:00", "2026-05-31T12:00:00+2:00", "２026-05-31T12:00:00Z", "2026-05-31T12:00:00.Z"])
    func notDates(_ text: String) {
        #expect(ReceiptDate.parse(text) == nil)
    }
}

@Suite("Receipt payload reader: duplicates and unknown attributes")
struct AppReceiptAttributeTests {
    /// DER of one ReceiptAttribute with a short value.
    static func attribute(_ type: UInt8, _ value: [UInt8]) -> [UInt8] {
        let body: [UInt8] = [0x02, 0x01, type, 0x02, 0x01, 0x01, 0x04, UInt8(value.count)] + value
        return [0x30, UInt8(body.count)] + body
    }

    static func set(_ attributes: [[UInt8]]) -> [UInt8] {
        let body = attributes.flatMap { $0 }
        // DER: the short length form below 128 (the long one would be refused as non-minimal).
        return (body.count < 0x80 ? [0x31, UInt8(body.count)] : [0x31, 0x81, UInt8(body.count)]) + body
    }

    static let bundle = attribute(2, [0x0C, 0x03] + Array("app".utf8))
    static let created = attribute(12, [0x16, 0x14] + Array("2026-05-31T12:00:00Z".utf8))

    @Test func unknownAttributesAreSkipped() throws {
        let receipt = try AppReceipt(payload: Self.set([Self.bundle, Self.attribute(99, [0xFF, 0x00]), Self.created]))
        #expect(receipt.bundleId == "app")
        #expect(receipt.receiptType == nil)
    }

    @Test func aDocumentedAttributeTwiceIsRefused() {
        let error = #expect(throws: ReceiptError.self) { try AppReceipt(payload: Self.set([Self.bundle, Self.bundle, Self.created])) }
        #expect(error?.reason.contains("twice") == true)
    }

    @Test func aStringAttributeOfTheWrongTypeIsRefused() {
        let integerBundle = Self.attribute(2, [0x02, 0x01, 0x05])
        #expect(throws: ReceiptError.self) { try AppReceipt(payload: Self.set([integerBundle, Self.created])) }
    }
}
