/// The backlogs: per customer, the events that wait because the first of them failed.
extension WebhookDeliverer {
    /// Retries every backlog whose first event is due, customer by customer.
    func retryBacklogs() throws {
        for member in waiting.sorted() {
            try retry(member)
        }
    }

    /// Sends the member's waiting events in order while they are due and go through.
    private func retry(_ member: String) throws {
        let key = StoreKeys.webhookBacklog(endpoint: endpoint.name, member: member)
        while true {
            guard let stored = try store.get(key) else { return try forget(member, key: key, exists: false) }
            var backlog = try WebhookBacklog(storeBytes: stored.bytes)
            guard let head = backlog.events.first else { return try forget(member, key: key, exists: true) }
            if let due = head.nextDueAt, due > now { return note(due: due) }
            guard try mayContinue() else { throw WebhookPassStop.stop }
            let delivered = try attempt(head, member: member, backlog: &backlog)
            guard try store.compareAndSet(key, try backlog.storeBytes(), expectedVersion: stored.version, expiresIn: nil) else {
                throw WebhookPassStop.stop
            }
            if !delivered, backlog.events.first?.id == head.id { return }
        }
    }

    /// One attempt at the backlog's first event; updates the backlog. True when delivered.
    private func attempt(_ head: WaitingEvent, member: String, backlog: inout WebhookBacklog) throws -> Bool {
        guard let event = try EventLog(store: store).events(after: head.sequence - 1, limit: 1).first,
              event.sequence == head.sequence, event.id == head.id else {
            var gone = head
            gone.lastAnswer = "expired from the log"
            try deadLetter(gone, member: member)
            backlog.events.removeFirst()
            return false
        }
        let sentAt = now
        guard let answer = try sender.send(event, to: endpoint, now: sentAt) else {
            report.delivered += 1
            backlog.events.removeFirst()
            return true
        }
        var failed = head
        failed.attempts += 1
        failed.firstFailedAt = head.firstFailedAt ?? sentAt
        failed.lastAnswer = answer
        failed.nextDueAt = schedule.nextDue(failures: failed.attempts, firstFailedAt: failed.firstFailedAt ?? sentAt, now: sentAt)
        onFailure(event, answer, failed.nextDueAt)
        if failed.nextDueAt == nil {
            try deadLetter(failed, member: member)
            backlog.events.removeFirst()
        } else {
            report.failed += 1
            note(due: failed.nextDueAt)
            backlog.events[0] = failed
        }
        return false
    }

    /// Keeps the event with its last answer for replay-events; the customer's next event goes.
    private func deadLetter(_ event: WaitingEvent, member: String) throws {
        let letter = WebhookDeadLetter(event, customerId: WebhookQueueMember.customerId(of: member), deadAt: now)
        try store.set(StoreKeys.webhookDeadLetter(endpoint: endpoint.name, eventId: event.id), record: letter, expiresIn: nil)
        try store.addToSet(StoreKeys.webhookDeadLetters(endpoint: endpoint.name), event.id)
        report.deadLettered += 1
    }

    /// Adds an event at the end of the member's backlog (once: a rerun after a kill finds it
    /// there). False when the backlog is full: back-pressure.
    func enqueue(_ event: WaitingEvent, member: String) throws -> Bool {
        // The set first: a backlog is always findable; a member without one is dropped later.
        try store.addToSet(StoreKeys.webhookWaiting(endpoint: endpoint.name), member)
        waiting.insert(member)
        let key = StoreKeys.webhookBacklog(endpoint: endpoint.name, member: member)
        let limit = limits.maximumEventsPerCustomer
        return try store.update(key, as: WebhookBacklog.self, attempts: 5) { (current) throws(StoreError) in
            var backlog = current ?? WebhookBacklog(events: [])
            if backlog.events.contains(where: { $0.id == event.id }) { return .keep(true) }
            guard backlog.events.count < limit else { return .keep(false) }
            backlog.events.append(event)
            return .write(backlog, true)
        }
    }

    /// A member with nothing waiting: its record goes, then its place in the set.
    private func forget(_ member: String, key: String, exists: Bool) throws {
        if exists { try store.delete(key) }
        try store.removeFromSet(StoreKeys.webhookWaiting(endpoint: endpoint.name), member)
        waiting.remove(member)
    }

    func note(due: Int64?) {
        guard let due else { return }
        report.nextDueAt = min(report.nextDueAt ?? due, due)
    }

    /// Events after the cursor plus those waiting.
    func countPending() throws {
        let cursor = try store.get(StoreKeys.webhookCursor(endpoint: endpoint.name), as: WebhookCursor.self)?.sequence ?? 0
        let last = try EventLog(store: store).bounds().last
        var pending = Int(max(0, last - cursor))
        for member in try store.setMembers(StoreKeys.webhookWaiting(endpoint: endpoint.name)) {
            let key = StoreKeys.webhookBacklog(endpoint: endpoint.name, member: member)
            pending += try store.get(key, as: WebhookBacklog.self)?.events.count ?? 0
        }
        report.pending = pending
    }
}
