import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// `export-data`: transactions or events for a warehouse, a spreadsheet, cohort and LTV work,
/// as CSV or NDJSON, incremental with a named cursor kept in the store, to stdout or to a
/// file. The cursor moves only once the output is complete (the file in place, stdout
/// written), so a run killed midway is repeated by the next, never skipped.
public final class ExportDataFunction: TypedFunction {
    /// With a file, the answer; on stdout the data is the answer, and this is the log line.
    public struct Response: Encodable {
        var of: String
        var format: String
        var cursor: String
        var mode: String
        var fellBackToFull: Bool
        var eventsTrimmed: Int64
        var rows: Int
        var eventsRead: Int
        var from: Int64
        var to: Int64
        var complete: Bool
        var file: String?
        var bytes: Int
    }

    public static let descriptor = FunctionDescriptor(
        name: "export-data",
        route: nil,
        method: "POST",
        visibility: .internal,
        summary: "Transactions or events as CSV or NDJSON for a warehouse or a spreadsheet, incremental with a cursor kept in the store, to stdout or a file.",
        request: """
            {"format": "csv" | "ndjson", "of": "transactions" | "events", "file": "<path>", "replace": false,
             "cursor": "<name>", "full": false, "limit": 50000, "dates": "iso8601" | "milliseconds"}
              format is required; of defaults to transactions. Without file the data is written
              to stdout; with it, to that file atomically (a temporary file beside it, then
              put in place), never over an existing file unless replace. cursor names an independent
              consumer (default: the value of of); its first run, or full, exports everything,
              later runs what changed since (transactions again with their latest facts:
              upsert by app and transactionId). limit: rows per run (1 to 1000000); the next run goes
              on. dates: iso8601 (CSV's default) or milliseconds (NDJSON's default).
            """,
        response: """
            stdout without file: the data itself (CSV: a header line, then a row per line,
              RFC 4180, CRLF; NDJSON: one object a line, nothing when there is nothing new),
              and the summary below as the "data_exported" log line on stderr.
            with file: {"of", "format", "cursor", "mode": "full" | "incremental",
              "fellBackToFull", "eventsTrimmed", "rows", "eventsRead", "from", "to",
              "complete", "file", "bytes"}
              from/to: the event-log sequences the run started after and reached; complete is
              false when the run stopped at limit (run again). fellBackToFull: the log was
              trimmed past the cursor, so everything was exported again (events: from the
              oldest kept; eventsTrimmed were lost). The README lists every column.
              invalid_request: 400, exit 65; a store failure 503, exit 75 (the cursor unmoved).
            """,
        variables: StorekeeperSettings.eventCatalogVariables
            + [.declared(RuntimeSettings.storeURL, "records, the event log and the cursors live there")]
    )

    private let context: FunctionContext
    /// What the relay attaches to the events it moves into the log (the customer's state).
    private let catalog: Catalog

    public init(context: FunctionContext) throws {
        self.context = context
        catalog = try StorekeeperSettings.eventCatalog(in: context.environment)
    }

    public func handle(_ request: Request, call _: FunctionRequest) throws -> Reply<Response> {
        let plan = try Self.plan(request)
        let store = try context.adapters.store()
        let now = context.clock.now().millisecondsSince1970
        // What is still in the records' outboxes (a writer killed before its relay) goes
        // into the log first, so the run sees every change made before it started.
        let relayed = try EventRelay(store: store, catalog: catalog).relayPending(now: now)
        if relayed > 0 { context.log.info("events_relayed", ["events": relayed]) }
        let export = DataExport(store: store, now: now)
        let outcome: DataExport.Outcome
        do {
            outcome = try export.run(plan.export)
        } catch let refusal as DataExport.Refusal {
            throw FunctionError.badInput(message: refusal.message)
        }
        let bytes = outcome.table.bytes
        let summary = Response(
            of: plan.export.of.rawValue, format: plan.export.format.rawValue, cursor: plan.export.cursor, mode: outcome.mode,
            fellBackToFull: outcome.fellBackToFull, eventsTrimmed: outcome.eventsTrimmed, rows: outcome.rows,
            eventsRead: outcome.eventsRead, from: outcome.from, to: outcome.to, complete: outcome.complete,
            file: plan.file?.path, bytes: bytes.count)
        if outcome.fellBackToFull {
            context.log.warning("export_cursor_trimmed", ["cursor": plan.export.cursor, "from": outcome.from])
        }
        let log = context.log
        let cursor = plan.export.cursor
        let save = AfterDelivery {
            if try !export.save(outcome, cursor: cursor) {
                log.warning("export_cursor_moved", ["cursor": cursor])
            }
            log.info("data_exported", Self.fields(summary))
        }
        guard let file = plan.file else {
            var reply = Reply(summary)
            reply.data = (bytes, plan.export.format == .csv ? "text/csv; charset=utf-8" : "application/x-ndjson")
            reply.afterDelivery = save
            return reply
        }
        try file.write(bytes)
        try save.run()
        return Reply(summary)
    }

    static func fields(_ summary: Response) -> [String: any LogFieldValue] {
        ["of": summary.of, "format": summary.format, "cursor": summary.cursor, "mode": summary.mode,
         "fellBackToFull": summary.fellBackToFull, "rows": summary.rows, "eventsRead": summary.eventsRead,
         "from": summary.from, "to": summary.to, "complete": summary.complete, "file": summary.file ?? "-", "bytes": summary.bytes]
    }
}
