extension DataExport {
    /// The events after the cursor (every event the log keeps without one), oldest first.
    func events(_ request: Request, cursor: ExportCursor?, bounds: LogBounds, version: Int64?) throws -> Outcome {
        var start = cursor?.sequence ?? 0
        var outcome = Outcome(of: .events, mode: cursor == nil ? "full" : "incremental", from: start, to: start,
                              next: ExportCursor(of: .events, sequence: start, full: nil, updatedAt: now), expectedVersion: version)
        if cursor != nil, Self.trimmed(after: start, bounds) {
            // What was trimmed is gone: from the oldest event kept, and say how many were lost.
            let oldest = bounds.first ?? bounds.last + 1
            outcome.fellBackToFull = true
            outcome.eventsTrimmed = start > bounds.last ? 0 : oldest - start - 1
            start = 0
            outcome.to = 0
        }
        let log = EventLog(store: store)
        while outcome.events.count < request.limit, outcome.to < bounds.last {
            let page = try log.events(after: outcome.to, limit: min(Self.page, request.limit - outcome.events.count))
            guard let last = page.last else { break }
            outcome.events += page
            outcome.to = last.sequence
        }
        outcome.eventsRead = outcome.events.count
        outcome.complete = outcome.to >= bounds.last
        outcome.next.sequence = outcome.to
        return outcome
    }
}

extension DataExport.Outcome {
    /// The run's output. Transactions as rows; events as CSV rows of their flat columns, or
    /// in NDJSON each event whole, its bytes as delivered (`Event.encoded()`).
    public func rendered(_ format: ExportFormat, dates: ExportDates) throws -> [UInt8] {
        guard of == .events else { return table.rendered(format, dates: dates) }
        switch format {
        case .csv:
            var events = ExportTable(columns: EventExportRow.columnNames)
            for event in self.events { events.append(EventExportRow.cells(event)) }
            return events.rendered(.csv, dates: dates)
        case .ndjson:
            var out: [UInt8] = []
            for event in self.events { out += try event.encoded() + [0x0A] }
            return out
        }
    }
}
