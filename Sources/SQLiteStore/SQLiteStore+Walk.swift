import StorekeeperCore

/// The tables of a walk (`SQLiteWalk`), each read as a range after the last row given out.
/// Values and jobs come by rowid (a job's rowid is its place in line, so a copy keeps each
/// queue's order); sets, streams and entries by their primary key, grouped into bounded items.
extension SQLiteStore {
    /// Appends at most `room` items of the walk's table; true when the table has no more.
    func walkTable(_ walk: inout SQLiteWalk, room: Int, now: Int64, into items: inout [StoreItem]) throws(StoreError) -> Bool {
        switch walk.phase {
        case .values: try walkValues(&walk, room: room, now: now, into: &items)
        case .members: try walkMembers(&walk, room: room, into: &items)
        case .jobs: try walkJobs(&walk, room: room, now: now, into: &items)
        case .logs: try walkLogs(&walk, room: room, into: &items)
        case .streams: try walkStreams(&walk, room: room, into: &items)
        case .entries: try walkEntries(&walk, room: room, into: &items)
        case .done: true
        }
    }

    private func walkValues(_ walk: inout SQLiteWalk, room: Int, now: Int64, into items: inout [StoreItem]) throws(StoreError) -> Bool {
        try run(.walkValues) { (statement) throws(StoreError) -> Bool in
            try statement.bind(walk.rowid, at: 1)
            try statement.bind(now, at: 2)
            try statement.bind(Int64(room), at: 3)
            var rows = 0
            while try statement.step() {
                rows += 1
                walk.rowid = statement.int64(at: 0)
                items.append(.value(key: statement.text(at: 1), bytes: statement.bytes(at: 2),
                                    expiresAt: statement.isNull(at: 3) ? nil : statement.int64(at: 3)))
            }
            return rows < room
        }
    }

    private func walkMembers(_ walk: inout SQLiteWalk, room: Int, into items: inout [StoreItem]) throws(StoreError) -> Bool {
        try run(.walkMembers) { (statement) throws(StoreError) -> Bool in
            try statement.bind(walk.name, at: 1)
            try statement.bind(walk.member, at: 2)
            let limit = room * SQLiteWalk.chunk
            try statement.bind(Int64(limit), at: 3)
            var rows = 0
            var added = 0
            while try statement.step() {
                let key = statement.text(at: 0)
                let member = statement.text(at: 1)
                if case .setMembers(let last, var members)? = items.last, last == key, members.count < SQLiteWalk.chunk, added > 0 {
                    members.append(member)
                    items[items.count - 1] = .setMembers(key: key, members: members)
                } else {
                    // A new item: only while there is room, else the next page starts here.
                    guard added < room else { return false }
                    items.append(.setMembers(key: key, members: [member]))
                    added += 1
                }
                rows += 1
                walk.name = key
                walk.member = member
            }
            return rows < limit
        }
    }

    private func walkJobs(_ walk: inout SQLiteWalk, room: Int, now: Int64, into items: inout [StoreItem]) throws(StoreError) -> Bool {
        try run(.walkJobs) { (statement) throws(StoreError) -> Bool in
            try statement.bind(walk.rowid, at: 1)
            try statement.bind(Int64(room), at: 2)
            var rows = 0
            while try statement.step() {
                rows += 1
                walk.rowid = statement.int64(at: 0)
                let job = Self.job(id: statement.text(at: 2), payload: statement.bytes(at: 3), priority: statement.int64(at: 4),
                                   visibleAt: statement.int64(at: 5), attempts: statement.int64(at: 6),
                                   maxAttempts: statement.int64(at: 7), state: statement.text(at: 8),
                                   enqueuedAt: statement.int64(at: 9), now: now)
                items.append(.job(queue: statement.text(at: 1), job: job))
            }
            return rows < room
        }
    }

    private func walkLogs(_ walk: inout SQLiteWalk, room: Int, into items: inout [StoreItem]) throws(StoreError) -> Bool {
        try run(.walkLogs) { (statement) throws(StoreError) -> Bool in
            try statement.bind(walk.name, at: 1)
            try statement.bind(Int64(room), at: 2)
            var rows = 0
            while try statement.step() {
                rows += 1
                walk.name = statement.text(at: 0)
                let first = statement.isNull(at: 2) ? nil : statement.int64(at: 2)
                items.append(.logBounds(log: walk.name, bounds: LogBounds(first: first, last: statement.int64(at: 1))))
            }
            return rows < room
        }
    }

    private func walkStreams(_ walk: inout SQLiteWalk, room: Int, into items: inout [StoreItem]) throws(StoreError) -> Bool {
        try run(.walkStreams) { (statement) throws(StoreError) -> Bool in
            try statement.bind(walk.name, at: 1)
            try statement.bind(walk.member, at: 2)
            let limit = room * SQLiteWalk.chunk
            try statement.bind(Int64(limit), at: 3)
            var rows = 0
            var added = 0
            while try statement.step() {
                let log = statement.text(at: 0)
                let version = LogStreamVersion(stream: statement.text(at: 1), version: statement.int64(at: 2))
                if case .logStreams(let last, var versions)? = items.last, last == log, versions.count < SQLiteWalk.chunk, added > 0 {
                    versions.append(version)
                    items[items.count - 1] = .logStreams(log: log, versions: versions)
                } else {
                    guard added < room else { return false }
                    items.append(.logStreams(log: log, versions: [version]))
                    added += 1
                }
                rows += 1
                walk.name = log
                walk.member = version.stream
            }
            return rows < limit
        }
    }

    private func walkEntries(_ walk: inout SQLiteWalk, room: Int, into items: inout [StoreItem]) throws(StoreError) -> Bool {
        try run(.walkEntries) { (statement) throws(StoreError) -> Bool in
            try statement.bind(walk.name, at: 1)
            try statement.bind(walk.sequence, at: 2)
            let limit = room * SQLiteWalk.chunk
            try statement.bind(Int64(limit), at: 3)
            var rows = 0
            var added = 0
            while try statement.step() {
                let log = statement.text(at: 0)
                let entry = LogEntry(sequence: statement.int64(at: 1), id: statement.text(at: 2),
                                     stream: statement.isNull(at: 3) ? nil : statement.text(at: 3),
                                     streamVersion: statement.int64(at: 4), recordedAt: statement.int64(at: 5), bytes: statement.bytes(at: 6))
                if case .logEntries(let last, var entries)? = items.last, last == log, entries.count < SQLiteWalk.chunk, added > 0 {
                    entries.append(entry)
                    items[items.count - 1] = .logEntries(log: log, entries: entries)
                } else {
                    guard added < room else { return false }
                    items.append(.logEntries(log: log, entries: [entry]))
                    added += 1
                }
                rows += 1
                walk.name = log
                walk.sequence = entry.sequence
            }
            return rows < limit
        }
    }
}
