import Foundation
import StorekeeperCore
import StorekeeperTesting
import Testing

/// export-data through its built binary, on a store (SQLite, Redis) that ingest-transaction filled as
/// in a deployment: the events are those the functions recorded, and a few appended to the
/// store's log as the relay appends them.
@Suite("export-data through the binary")
struct ExportDataBinaryTests {
    static let app = "com.example.storekeeper"

    struct World {
        let store: TestStore

        init(_ backend: Backend = .sqlite) throws {
            store = try TestStore(backend)
        }

        func run(_ name: String, _ request: [String: Any], store url: String? = nil) throws -> FunctionBinary.Result {
            var environment = SupportBinaryTests.environment
            environment["STORE_URL"] = url ?? store.url
            return try FunctionBinary(name: name).run(stdin: try JSONSerialization.data(withJSONObject: request), environment: environment)
        }

        func export(_ request: [String: Any], store url: String? = nil) throws -> FunctionBinary.Result {
            try run("export-data", request, store: url)
        }

        /// A signed version of a transaction, ingested for `userId`.
        func ingest(_ id: String, original: String? = nil, userId: String?, productId: String = "com.example.pro.monthly",
                    signedLater: Int64 = 0, extra: [String: Any] = [:]) throws {
            let now = SupportBinaryTests.now
            var payload: [String: Any] = [
                "transactionId": id, "originalTransactionId": original ?? id, "bundleId": ExportDataBinaryTests.app,
                "productId": productId, "type": "Auto-Renewable Subscription", "purchaseDate": now,
                "originalPurchaseDate": now, "expiresDate": now + 2_592_000_000, "signedDate": now + signedLater,
                "environment": "Sandbox", "inAppOwnershipType": "PURCHASED", "webOrderLineItemId": "9\(id)",
                "price": 10990, "currency": "EUR", "storefront": "DEU", "transactionReason": "PURCHASE",
            ]
            payload.merge(extra) { $1 }
            let signed = try FunctionBinary(name: "simulate-store").run(
                stdin: try JSONSerialization.data(withJSONObject: ["sign": "transaction", "payload": payload]),
                environment: ["SIMULATE_PKI_DIR": "Tests/Fixtures/pki"])
            let jws = try #require((try JSONSerialization.jsonObject(with: signed.stdout) as? [String: Any])?["signedData"] as? String)
            var request: [String: Any] = ["jwsRepresentation": jws]
            if let userId { request["userId"] = userId }
            let ingested = try run("ingest-transaction", request)
            #expect(ingested.exitCode == 0, "\(ingested.stdoutText)")
        }

        /// An event in the log, as the relay appends it.
        func event(_ id: String, _ type: EventType, original: String, transaction: String?, customer: String = "u-1") throws {
            let store = try self.store.open()
            let version = try store.logStreamVersion(StoreKeys.eventLog, stream: customer)
            let event = Event(id: id, type: type.rawValue, occurredAt: SupportBinaryTests.now, recordedAt: SupportBinaryTests.now,
                              app: ExportDataBinaryTests.app, environment: "Sandbox", customerId: customer, userId: customer,
                              productId: "com.example.pro.monthly", transactionId: transaction, originalTransactionId: original,
                              source: "ingest", customer: .object(["version": .number(Double(version + 1))]))
            let outcome = try store.appendToLog(StoreKeys.eventLog, LogAppend(
                id: id, stream: customer, expectedStreamVersion: version, recordedAt: event.recordedAt, bytes: try event.encoded()))
            guard case .appended = outcome else { throw StoreError(.failed, "not appended: \(outcome)") }
        }
    }

    /// RFC 4180 rows (the test's own small reader: quoted fields, doubled quotes, CRLF).
    static func csv(_ text: String) -> [[String]] {
        var rows: [[String]] = [], row: [String] = [], field = "", quoted = false
        var characters = Array(text.unicodeScalars)[...]
        while let character = characters.popFirst() {
            if quoted {
                if character == "\"" {
                    if characters.first == "\"" { field.unicodeScalars.append(characters.removeFirst()) } else { quoted = false }
                } else { field.unicodeScalars.append(character) }
            } else if character == "\"" { quoted = true
            } else if character == "," { row.append(field); field = ""
            } else if character == "\r" { continue
            } else if character == "\n" { row.append(field); rows.append(row); row = []; field = ""
            } else { field.unicodeScalars.append(character) }
        }
        return rows
    }

    static func lines(_ result: FunctionBinary.Result) throws -> [[String: Any]] {
        try result.stdoutText.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], "\($0)")
        }
    }

    static func summary(_ result: FunctionBinary.Result) throws -> [String: Any] {
        let line = try #require(result.stderrText.split(separator: "\n").first { $0.contains("\"data_exported\"") }, "\(result.stderrText)")
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test("CSV: the pinned header, RFC 4180 quoting of a product id with a comma; NDJSON parses, under the same names",
          arguments: Backend.allCases)
    func csvAndNDJSON(_ backend: Backend) throws {
        guard backend == .sqlite || AppleWorld.redisAvailable else { return }
        let world = try World(backend)
        try world.ingest("2000000801", userId: "u-1", productId: "com.example.pro,monthly")
        try world.ingest("2000000802", userId: nil)
        try world.ingest("2000000803", userId: "u-3", productId: "com.example.coins.100",
                         extra: ["type": "Consumable", "expiresDate": NSNull(), "transactionReason": "PURCHASE"])
        let result = try world.export(["format": "csv"])
        #expect(result.exitCode == 0, "\(result.stderrText)")
        #expect(result.stdoutText.hasPrefix(TransactionExportRow.columnNames.joined(separator: ",") + "\r\n"))
        #expect(result.stdoutText.contains("\"com.example.pro,monthly\""), "\(result.stdoutText)")
        let rows = Self.csv(result.stdoutText)
        #expect(rows.count == 4, "\(result.stdoutText)")
        let header = rows[0]
        let first = Dictionary(uniqueKeysWithValues: zip(header, rows[1]))
        #expect(first["productId"] == "com.example.pro,monthly")
        #expect(first["userId"] == "u-1")
        #expect(first["price"] == "10990")
        #expect(first["webOrderLineItemId"] == "92000000801")
        #expect(first["purchaseDate"] == "2026-06-01T00:00:00.000Z")
        #expect(first["revocationDate"] == "")
        #expect(rows[2][header.firstIndex(of: "userId")!] == "", "nobody linked")
        let coins = Dictionary(uniqueKeysWithValues: zip(header, rows[3]))
        #expect(coins["type"] == "Consumable" && coins["userId"] == "u-3" && coins["expiresDate"] == "", "the consumables after the subscriptions")
        #expect(try Self.summary(result)["rows"] as? Int == 3)

        let ndjson = try world.export(["format": "ndjson", "cursor": "program"])
        #expect(ndjson.exitCode == 0, "\(ndjson.stderrText)")
        let objects = try Self.lines(ndjson)
        #expect(objects.count == 3)
        #expect(objects.allSatisfy { Set($0.keys) == Set(TransactionExportRow.columnNames) })
        #expect(objects.first?["purchaseDate"] as? Int64 == SupportBinaryTests.now, "milliseconds by default")
        #expect(objects.first?["revocationDate"] is NSNull)
    }

    @Test("incremental: a second run exports only the transaction an event named, with its latest facts; events export",
          arguments: Backend.allCases)
    func incrementalAndEvents(_ backend: Backend) throws {
        guard backend == .sqlite || AppleWorld.redisAvailable else { return }
        let world = try World(backend)
        try world.ingest("2000000811", userId: "u-1")
        try world.ingest("2000000812", userId: "u-2")
        let first = try world.export(["format": "ndjson"])
        #expect(try Self.lines(first).count == 2)
        let nothing = try world.export(["format": "ndjson"])
        #expect(nothing.exitCode == 0 && nothing.stdout.isEmpty, "nothing changed: \(nothing.stdoutText)")

        // Apple refunds the first: a later signed version, which records its event.
        try world.ingest("2000000811", userId: "u-1", signedLater: 60_000,
                         extra: ["revocationDate": SupportBinaryTests.now + 60_000, "revocationReason": 0, "revocationType": "REFUND_FULL"])
        let second = try world.export(["format": "ndjson"])
        let rows = try Self.lines(second)
        #expect(rows.map { $0["transactionId"] as? String } == ["2000000811"], "\(second.stdoutText)")
        #expect(rows.first?["revocationDate"] as? Int64 == SupportBinaryTests.now + 60_000)
        #expect(try Self.summary(second)["mode"] as? String == "incremental")

        let events = try world.export(["format": "ndjson", "of": "events"])
        let delivered = try Self.lines(events)
        // ingest-transaction recorded them: the purchases, then the refund.
        #expect(delivered.map { $0["type"] as? String } == ["INITIAL_PURCHASE", "INITIAL_PURCHASE", "REFUND"], "\(events.stdoutText)")
        #expect(delivered.last?["transactionId"] as? String == "2000000811")
        #expect(delivered.allSatisfy { ($0["sequence"] as? Int64 ?? 0) > 0 })
        try world.event("ev-cancel", .cancellation, original: "2000000812", transaction: "2000000812", customer: "u-2")
        let csv = try world.export(["format": "csv", "of": "events", "dates": "milliseconds"])
        let table = Self.csv(csv.stdoutText)
        #expect(table.first == EventExportRow.columnNames)
        #expect(table.dropFirst().map { $0[0] } == ["ev-cancel"], "only what came after the cursor: \(csv.stdoutText)")
    }

    @Test("an event still in its record's outbox (the writer stopped before its relay) is relayed by the run and exported")
    func relaysWhatIsPending() throws {
        let world = try World()
        var simulator = LifecycleSimulator(originalTransactionId: "2000000831")
        simulator.subscribe()
        let repository = { (recording: EventRecording?) in
            EntitlementRepository(store: try world.store.open(), events: recording)
        }
        try repository(nil).apply(simulator.events[0], userId: "u-1")
        let first = try world.export(["format": "ndjson"])
        #expect(try Self.lines(first).map { $0["transactionId"] as? String } == ["20000008311"], "\(first.stdoutText)")

        // A renewal written with its event left in the outbox: never flushed, as by a writer killed after its write.
        simulator.renew()
        let recording = EventRecording(catalog: Catalog(apps: [], entitlements: [:], products: [:], productsImplied: true),
                                       time: SystemTime(), deferred: true)
        let before = try world.store.open().logBounds(StoreKeys.eventLog).last
        try repository(recording).apply(simulator.events[1], userId: "u-1")
        #expect(try world.store.open().logBounds(StoreKeys.eventLog).last == before, "not in the log yet")
        let second = try world.export(["format": "ndjson"])
        #expect(try Self.lines(second).map { $0["transactionId"] as? String } == ["20000008312"], "\(second.stdoutText)")
        #expect(second.stderrText.contains("\"events_relayed\""), "\(second.stderrText)")
    }

    @Test("file: written atomically, answered with the summary; never over an existing file unless replace, the cursor unmoved")
    func fileOutput() throws {
        let world = try World()
        try world.ingest("2000000821", userId: "u-1")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("export-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("tx.csv").path
        let written = try world.export(["format": "csv", "file": file])
        #expect(written.exitCode == 0, "\(written.stderrText)")
        let answer = try #require(try JSONSerialization.jsonObject(with: written.stdout) as? [String: Any])
        #expect(answer["rows"] as? Int == 1 && answer["file"] as? String == file && answer["mode"] as? String == "full")
        #expect(Self.csv(try String(contentsOfFile: file, encoding: .utf8)).count == 2)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["tx.csv"], "no temporary file left")

        try world.ingest("2000000822", userId: "u-2")
        try world.event("ev-new", .initialPurchase, original: "2000000822", transaction: "2000000822", customer: "u-2")
        let refused = try world.export(["format": "csv", "file": file])
        #expect(refused.exitCode == 65)
        let error = try #require((try JSONSerialization.jsonObject(with: refused.stdout) as? [String: Any])?["error"] as? [String: Any])
        #expect(error["code"] as? String == "invalid_request")
        let replaced = try world.export(["format": "csv", "file": file, "replace": true])
        #expect(replaced.exitCode == 0, "\(replaced.stderrText)")
        let rows = Self.csv(try String(contentsOfFile: file, encoding: .utf8))
        #expect(rows.dropFirst().map { $0[0] } == ["2000000822"], "what the refused run would have written")
    }

    @Test("a bad request is 400 with a stable code, exit 65; a store fault is 503, exit 75")
    func refusals() throws {
        let world = try World()
        for request: [String: Any] in [["format": "xml"], [:], ["format": "csv", "of": "customers"], ["format": "csv", "limit": 0],
                                        ["format": "csv", "cursor": "../x"], ["format": "csv", "replace": true],
                                        ["format": "csv", "file": "/nonexistent-folder/x.csv"], ["format": "csv", "since": 1]] {
            let result = try world.export(request)
            #expect(result.exitCode == 65, "\(request): \(result.stdoutText)")
            let error = (try? JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])?["error"] as? [String: Any]
            #expect(["invalid_request", "unknown_field"].contains(error?["code"] as? String ?? ""), "\(request): \(result.stdoutText)")
        }
        let down = try world.export(["format": "csv"], store: "redis://127.0.0.1:1")
        #expect(down.exitCode == 75, "\(down.stderrText)")
        let error = (try? JSONSerialization.jsonObject(with: down.stdout) as? [String: Any])?["error"] as? [String: Any]
        #expect(error?["code"] as? String == "store_unavailable", "\(down.stdoutText)")
    }
}
