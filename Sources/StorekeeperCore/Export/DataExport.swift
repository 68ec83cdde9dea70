/// export-data's work, no I/O of its own: reads the cursor, the records and the event log,
/// builds the rows, and says which cursor to save once the output is complete (`save`).
///
/// Transactions: the first run (or `full`) walks every subscription record and every
/// consumable purchase, and notes the log's last sequence; later runs export the
/// transactions named by the events after the cursor, as they stand now (a refunded
/// transaction appears again, with its revocation: a warehouse upserts by transactionId).
/// When the log was trimmed past the cursor, the run walks everything again and says so.
/// Events: the events after the cursor, oldest first.
public struct DataExport {
    /// Events read from the log per store call.
    static let page = 500

    /// What a run asks for.
    public struct Request: Sendable {
        public var of: ExportCursor.Kind
        public var cursor: String
        /// From the beginning, whatever the cursor says.
        public var full: Bool
        /// The run stops once it has this many rows (at the end of the subscription or event
        /// that reached it); the next run goes on from there.
        public var limit: Int
        public var format: ExportFormat
        public var dates: ExportDates

        public init(of: ExportCursor.Kind, cursor: String, full: Bool, limit: Int, format: ExportFormat, dates: ExportDates) {
            self.of = of
            self.cursor = cursor
            self.full = full
            self.limit = limit
            self.format = format
            self.dates = dates
        }

        /// The output a run of this request writes into.
        var table: ExportTable {
            ExportTable(columns: of == .events ? EventExportRow.columnNames : TransactionExportRow.columnNames,
                        format: format, dates: dates)
        }
    }

    /// What a run found, and the cursor to save once its output is complete.
    public struct Outcome: Sendable {
        public var of: ExportCursor.Kind
        /// The output: transactions as rows; events as CSV rows of their flat columns, or in
        /// NDJSON each event whole, its bytes as delivered (`Event.encoded()`).
        public var table: ExportTable
        /// `full` or `incremental`.
        public var mode: String
        /// The cursor was behind the log's oldest event (trimmed): everything again.
        public var fellBackToFull = false
        /// Events the log no longer had between the cursor and its oldest (of events).
        public var eventsTrimmed: Int64 = 0
        /// The sequence the run started after and the one it reached.
        public var from: Int64
        public var to: Int64
        public var eventsRead = 0
        /// False when the run stopped at its limit: run again to go on.
        public var complete = true
        public var rows: Int { table.rowCount }
        var next: ExportCursor
        let expectedVersion: Int64?
    }

    /// Why the request cannot be run (a cursor of the other kind): the caller's mistake.
    public struct Refusal: Error, Sendable {
        public let message: String
    }

    let store: any KeyValueStore
    let now: Int64

    public init(store: any KeyValueStore, now: Int64) {
        self.store = store
        self.now = now
    }

    public func run(_ request: Request) throws -> Outcome {
        let stored = try store.get(StoreKeys.exportCursor(request.cursor))
        var cursor: ExportCursor?
        if let stored { cursor = try ExportCursor(storeBytes: stored.bytes) }
        if let cursor, cursor.of != request.of {
            throw Refusal(message: "the cursor `\(request.cursor)` exports \(cursor.of.rawValue), not \(request.of.rawValue): name another cursor")
        }
        let bounds = try EventLog(store: store).bounds()
        switch request.of {
        case .transactions: return try transactions(request, cursor: cursor, bounds: bounds, version: stored?.version)
        case .events: return try events(request, cursor: request.full ? nil : cursor, bounds: bounds, version: stored?.version)
        }
    }

    /// Moves the cursor, once the output is complete. False when another run moved it
    /// meanwhile (two runs of one cursor at once): it is left as that run wrote it.
    @discardableResult
    public func save(_ outcome: Outcome, cursor name: String) throws(StoreError) -> Bool {
        try store.compareAndSet(StoreKeys.exportCursor(name), try outcome.next.storeBytes(),
                                expectedVersion: outcome.expectedVersion, expiresIn: nil)
    }

    /// Whether events after `sequence` are missing from the log (trimmed, or a log that
    /// started again below it).
    static func trimmed(after sequence: Int64, _ bounds: LogBounds) -> Bool {
        if sequence > bounds.last { return true }
        guard sequence < bounds.last else { return false }
        return (bounds.first ?? bounds.last + 1) > sequence + 1
    }
}
