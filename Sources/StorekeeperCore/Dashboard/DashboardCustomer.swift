/// The dashboard's customer view: the lookup form, and one customer as `get-customer` answers
/// it (`CustomerAnswer`), its entitlements and its timeline told as a story, newest last.
public enum DashboardCustomer {
    /// The GET form that looks a customer up by any id; works without scripts.
    public static func lookupForm(value: String = "", environment: String) -> String {
        """
        <form method="get" action="/dashboard" role="search"><label>Customer: user id, appAccountToken, \
        originalTransactionId, transactionId or appTransactionId<br><input type="search" name="customer" value="\(HTMLEscaping.escape(value))" \
        required maxlength="200"></label><input type="hidden" name="environment" value="\(HTMLEscaping.escape(environment))">
        <button type="submit">Look up</button></form>
        """
    }

    /// The view of `answer`, looked up by `id`; nil `answer`: no customer has that id.
    public static func html(id: String, answer: CustomerAnswer?, environment: String, now: Int64) -> String {
        var body = "<h1>Storekeeper: customer</h1><p><a href=\"/dashboard?environment=\(HTMLEscaping.escape(environment))\">"
            + "Back to the dashboard</a></p>" + lookupForm(value: id, environment: environment)
        guard let answer else {
            body += "<p class=\"band red\" role=\"alert\">No such customer: no user id, appAccountToken, originalTransactionId, "
                + "transactionId or appTransactionId is <code>\(HTMLEscaping.escape(id))</code>.</p>"
            return DashboardHTML.document(title: "Storekeeper: no such customer", body: body)
        }
        body += "<h2>Customer <code>\(HTMLEscaping.escape(answer.userId ?? id))</code></h2>"
        body += answer.userId == nil ? "<p>No user is linked to this purchase.</p>" : ""
        if !answer.appAccountTokens.isEmpty {
            body += "<p>appAccountTokens: " + answer.appAccountTokens.map { "<code>\(HTMLEscaping.escape($0))</code>" }
                .joined(separator: ", ") + "</p>"
        }
        body += "<h3>Entitlements</h3>" + entitlements(answer.entitlements, now: now)
        body += "<h3>Timeline</h3>" + story(answer.history)
        return DashboardHTML.document(title: "Storekeeper: customer", body: body)
    }

    static func entitlements(_ entitlements: [String: CustomerEntitlement], now: Int64) -> String {
        guard !entitlements.isEmpty else { return "<p>No entitlement.</p>" }
        var html = "<table><tr><th>Entitlement</th><th>State</th><th>From</th><th>Until</th></tr>"
        for (name, entitlement) in entitlements.sorted(by: { $0.key < $1.key }) {
            let from = entitlement.grantedBy == .grant ? "grant \(entitlement.grantId ?? "")" : (entitlement.productId ?? "?")
            let until = entitlement.expiresDate.map(date) ?? (entitlement.durationUnknown ? "unknown" : "no end")
            html += "<tr><td>\(HTMLEscaping.escape(name))</td><td>\(HTMLEscaping.escape(state(entitlement, now: now)))</td>"
                + "<td>\(HTMLEscaping.escape(from))</td><td>\(HTMLEscaping.escape(until))</td></tr>"
        }
        return html + "</table>"
    }

    /// In words: "active, renews", "in grace period", "ended: expired".
    static func state(_ entitlement: CustomerEntitlement, now: Int64) -> String {
        guard entitlement.active else { return "ended" + (entitlement.expirationReason.map { ": \($0)" } ?? "") }
        if let grace = entitlement.gracePeriodExpiresDate, grace > now { return "active, in grace period (billing problem)" }
        if entitlement.billingIssueDetectedAt != nil { return "active, billing problem" }
        if entitlement.grantedBy == .grant { return "active, granted by support" }
        var words = entitlement.willRenew ? "active, renews" : "active, auto-renew off"
        if entitlement.periodType != .normal { words += " (\(entitlement.periodType.rawValue))" }
        return words
    }

    /// The timeline, oldest first: date, product, what happened, from which source.
    static func story(_ history: [HistoryEntry]) -> String {
        guard !history.isEmpty else { return "<p>Nothing recorded.</p>" }
        var html = "<ol class=\"story\">"
        for entry in history {
            let product = entry.productId.map { " <strong>\(HTMLEscaping.escape($0))</strong>:" } ?? ""
            html += "<li><time datetime=\"\(HTMLEscaping.escape(UTCTimestamp.format(milliseconds: entry.date)))\">"
                + "\(HTMLEscaping.escape(date(entry.date)))</time>\(product) \(HTMLEscaping.escape(DashboardStory.words(entry)))"
                + " <span class=\"src\">(from \(HTMLEscaping.escape(DashboardStory.source(entry))))</span></li>"
        }
        return html + "</ol>"
    }

    /// ISO 8601 to the minute, UTC: "2026-12-01 23:15 UTC".
    static func date(_ milliseconds: Int64) -> String {
        let stamp = UTCTimestamp.format(milliseconds: milliseconds)
        return String(stamp.prefix(10)) + " " + String(stamp.dropFirst(11).prefix(5)) + " UTC"
    }
}
