extension DashboardPage {
    /// The last 90 days, one bar a day, each flow summed over the view's shards.
    func overTime() -> String {
        var perDay = [[String: Int]](repeating: [:], count: Self.days)
        var active = [Int](repeating: 0, count: Self.days)
        var labels: [String] = []
        for shard in shards {
            guard let figures = shard.figures else { continue }
            let daily = figures.daily(count: Self.days, now: reading.now)
            labels = daily.map(\.day)
            for (index, day) in daily.enumerated() where index < Self.days {
                perDay[index].merge(day.flows, uniquingKeysWith: +)
                active[index] += day.active
            }
        }
        let first = labels.first ?? MetricsDay.of(reading.now - Int64(Self.days - 1) * MetricsDay.milliseconds)
        let last = labels.last ?? MetricsDay.of(reading.now)
        var html = "<h2>Over time (\(Self.days) days, \(HTMLEscaping.escape(first)) to \(HTMLEscaping.escape(last)))</h2>"
        html += DashboardHTML.bars("active subscriptions", active, first: first, last: last, level: true)
        let flows: [(String, MetricsFlow)] = [
            ("new purchases", .newPurchase), ("renewals", .renewal), ("expirations", .expiration), ("refunds", .refund),
            ("churn", .churn), ("trial conversions", .trialConversion), ("refund requests", .refundRequest),
            ("refunds declined", .refundDeclined), ("refunds reversed", .refundReversed),
        ]
        for (title, flow) in flows {
            html += DashboardHTML.bars(title, perDay.map { $0[flow.rawValue] ?? 0 }, first: first, last: last)
        }
        return html
    }

    /// Notifications, queue, dead letters, the last notification, corrections and webhooks.
    func pipeline() -> String {
        var types: [String: Int] = [:]
        var last: (at: Int64, type: String)?
        for shard in shards {
            guard let counts = shard.notifications else { continue }
            types.merge(counts.types, uniquingKeysWith: +)
            if let at = counts.lastReceivedAt, at > (last?.at ?? Int64.min) { last = (at, counts.lastType ?? "") }
        }
        var html = "<h2>Pipeline</h2>" + quietBand(last)
        html += "<p>" + queueLine() + ". Dead letters: <strong>\(reading.deadLetters)</strong>"
        if let note = reading.lastDeadLetter {
            html += " (last: \(HTMLEscaping.escape(note.code)) at \(HTMLEscaping.escape(UTCTimestamp.format(milliseconds: note.at))), "
                + "notification \(HTMLEscaping.escape(note.notificationUUID)))"
        }
        html += ".</p>" + perDay()
        html += "<h3>Notifications received since counting began</h3>"
            + DashboardHTML.table(("Notification type", "Received"), types.sorted { $0.key < $1.key }.map { ($0.key, String($0.value)) })
        var kinds: [String: Int] = [:]
        for (correctedApp, counts) in reading.corrections where app == nil || correctedApp == app {
            kinds.merge(counts.kinds, uniquingKeysWith: +)
        }
        html += "<h3>Reconciliation corrections (each a lost notification)</h3>"
            + DashboardHTML.table(("Kind", "Corrections"), kinds.sorted { $0.key < $1.key }.map { ($0.key, String($0.value)) })
        html += "<h3>Webhook deliveries</h3>" + webhookTable()
        return html + recoveryRuns()
    }

    /// One chart a notification type, one bar a day, and all types together.
    private func perDay() -> String {
        guard let days = notificationDays?.days, let first = days.first?.day, let last = days.last?.day else { return "" }
        var html = "<h3>Notifications received per day by type</h3>"
        html += DashboardHTML.bars("all notifications", days.map { $0.types.values.reduce(0, +) }, first: first, last: last)
        for type in notificationDays?.types ?? [] {
            html += DashboardHTML.bars(type, days.map { $0.types[type] ?? 0 }, first: first, last: last)
        }
        return html
    }

    private func quietBand(_ last: (at: Int64, type: String)?) -> String {
        guard let last else {
            return "<p class=\"band red\" role=\"alert\">No notification received yet.</p>"
        }
        let age = max(0, (reading.now - last.at) / 1000)
        let text = "Last notification: \(last.type) at \(UTCTimestamp.format(milliseconds: last.at)), \(age / 3600) h \(age % 3600 / 60) min ago."
        let quiet = age > quietSeconds
        return "<p class=\"band \(quiet ? "red" : "ok")\"\(quiet ? " role=\"alert\"" : "")>\(HTMLEscaping.escape(text))"
            + (quiet ? " Nothing arrived for longer than \(quietSeconds / 3600) h." : "") + "</p>"
    }
}
