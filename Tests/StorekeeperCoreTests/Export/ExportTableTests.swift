@testable import StorekeeperCore
import Testing

@Suite("Export table: CSV quoting, NDJSON, dates")
struct ExportTableTests {
    @Test func csvQuotesWhatRFC4180Needs() {
        func table(_ dates: ExportDates) -> ExportTable {
            var table = ExportTable(columns: ["a", "b", "c", "d"], format: .csv, dates: dates)
            table.append([.text("com.example.pro,monthly"), .text("say \"hi\""), .text("two\nlines"), .text("plain")])
            table.append([.integer(10990), .empty, .bool(true), .date(1_780_272_000_123)])
            return table
        }
        let text = String(decoding: table(.iso8601).bytes, as: UTF8.self)
        #expect(text == "a,b,c,d\r\n\"com.example.pro,monthly\",\"say \"\"hi\"\"\",\"two\nlines\",plain\r\n10990,,true,2026-06-01T00:00:00.123Z\r\n")
        #expect(table(.iso8601).rowCount == 2)
        let milliseconds = String(decoding: table(.milliseconds).bytes, as: UTF8.self)
        #expect(milliseconds.hasSuffix("10990,,true,1780272000123\r\n"))
    }

    @Test func ndjsonIsOneObjectALineUnderTheSameNames() {
        var table = ExportTable(columns: ["id", "price", "note", "when"], format: .ndjson, dates: .iso8601)
        table.append([.text("1\u{1}\"\\"), .integer(990), .empty, .date(0)])
        let text = String(decoding: table.bytes, as: UTF8.self)
        #expect(text == #"{"id":"1\u0001\"\\","price":990,"note":null,"when":"1970-01-01T00:00:00.000Z"}"# + "\n")
        #expect(ExportTable(columns: ["id"], format: .ndjson, dates: .milliseconds).bytes.isEmpty, "nothing new: no line at all")
    }

    /// The columns are a contract with every warehouse loading them: renaming or reordering
    /// one breaks their loads. New columns go at the end (and here).
    @Test func theColumnsAreStable() {
        #expect(TransactionExportRow.columnNames.joined(separator: ",") ==
            "transactionId,originalTransactionId,webOrderLineItemId,app,productId,type,transactionReason,"
            + "subscriptionGroupIdentifier,purchaseDate,originalPurchaseDate,expiresDate,price,currency,offerType,"
            + "offerIdentifier,offerDiscountType,offerPeriod,environment,storefront,inAppOwnershipType,revocationDate,"
            + "revocationReason,revocationType,revocationPercentage,isUpgraded,userId,signedDate")
        #expect(EventExportRow.columnNames.joined(separator: ",") ==
            "id,sequence,type,occurredAt,recordedAt,app,environment,customerId,userId,productId,transactionId,"
            + "originalTransactionId,notificationUUID,notificationType,notificationSubtype,source,customerVersion,"
            + "previousCustomerId,entitlement,grantId")
    }
}
