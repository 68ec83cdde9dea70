/// The dashboard's frame: the document, its inline style, the sign-in form, small tables and
/// inline SVG charts. No script, no external resource; every value through `HTMLEscaping`.
public enum DashboardHTML {
    /// The page's Content-Security-Policy: nothing but inline style and data: images.
    public static let contentSecurityPolicy =
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    static let style = """
        body{font:15px/1.4 system-ui,sans-serif;margin:0;padding:1em;max-width:70em;color:#222}
        h1{font-size:1.3em}h2{font-size:1.1em;border-bottom:1px solid #ccc;margin-top:1.5em}
        table{border-collapse:collapse;margin:.5em 0;max-width:100%}td,th{padding:.2em .6em;text-align:left;border-bottom:1px solid #eee;overflow-wrap:anywhere}
        td.n{text-align:right;font-variant-numeric:tabular-nums}.band{padding:.5em;margin:.5em 0}
        .red{background:#c62828;color:#fff}.ok{background:#e8f5e9}.chart{display:inline-block;margin:.3em 1em .3em 0}
        svg{max-width:100%;height:auto}form{margin:1em 0}input{font-size:1em;padding:.3em;max-width:100%;box-sizing:border-box}
        code{overflow-wrap:anywhere}.story{padding-left:1.5em}.story li{margin:.2em 0;overflow-wrap:anywhere}.src{color:#666}
        """

    public static func document(title: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(HTMLEscaping.escape(title))</title><style>\(style)</style></head>
        <body>\(body)</body></html>
        """
    }

    /// The sign-in form, POSTed to /dashboard; `failed` says only that sign-in failed.
    public static func signInForm(failed: Bool) -> String {
        let note = failed ? "<p class=\"band red\" role=\"alert\">Sign-in failed.</p>" : ""
        return document(title: "Storekeeper: sign in", body: """
            <h1>Storekeeper dashboard</h1>\(note)
            <form method="post" action="/dashboard"><label>Token (admin, or a token with the read scope)<br>
            <input type="password" name="token" autocomplete="current-password" required></label>
            <button type="submit">Sign in</button></form>
            """)
    }

    /// A two-column table of `rows` (label, value), or a note when there are none.
    static func table(_ heading: (String, String), _ rows: [(String, String)]) -> String {
        guard !rows.isEmpty else { return "<p>\(HTMLEscaping.escape(heading.0)): none.</p>" }
        var html = "<table><tr><th>\(HTMLEscaping.escape(heading.0))</th><th>\(HTMLEscaping.escape(heading.1))</th></tr>"
        for (label, value) in rows {
            html += "<tr><td>\(HTMLEscaping.escape(label))</td><td class=\"n\">\(HTMLEscaping.escape(value))</td></tr>"
        }
        return html + "</table>"
    }

    /// A table of `rows` under `headings`; a cell of digits only is a number, right-aligned.
    static func grid(_ headings: [String], _ rows: [[String]]) -> String {
        var html = "<table><tr>" + headings.map { "<th>\(HTMLEscaping.escape($0))</th>" }.joined() + "</tr>"
        for row in rows {
            html += "<tr>" + row.map { cell in
                let numeric = !cell.isEmpty && cell.unicodeScalars.allSatisfy { ("0"..."9").contains($0) }
                return "<td\(numeric ? " class=\"n\"" : "")>\(HTMLEscaping.escape(cell))</td>"
            }.joined() + "</tr>"
        }
        return html + "</table>"
    }

    /// A small inline SVG bar chart of one series, one bar a day, with its title and total; a
    /// `level` (active subscriptions) is captioned with its last day's value, not a sum.
    static func bars(_ title: String, _ values: [Int], first: String, last: String, level: Bool = false) -> String {
        let width = 270, height = 60
        let top = max(1, values.max() ?? 1)
        let step = values.isEmpty ? 0 : Double(width) / Double(values.count)
        var rects = ""
        for (index, value) in values.enumerated() where value != 0 {
            let barHeight = Double(height) * Double(abs(value)) / Double(top)
            let x = Double(index) * step
            rects += "<rect x=\"\(format(x))\" y=\"\(format(Double(height) - barHeight))\" width=\"\(format(max(1, step - 0.5)))\" height=\"\(format(barHeight))\"/>"
        }
        let total = values.reduce(0, +)
        let summary = level ? "\(values.last ?? 0) on \(last)" : String(total)
        let label = level ? "\(title) from \(first) to \(last): \(values.first ?? 0) to \(values.last ?? 0), at most \(values.max() ?? 0)"
            : "\(title): \(total) from \(first) to \(last), at most \(values.max() ?? 0) a day"
        return """
            <figure class="chart"><figcaption>\(HTMLEscaping.escape(title)) (\(HTMLEscaping.escape(summary)))</figcaption>
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(width) \(height)" width="\(width)" height="\(height)" role="img" \
            aria-label="\(HTMLEscaping.escape(label))"><rect width="\(width)" height="\(height)" fill="#f5f5f5"/><g fill="#1565c0">\(rects)</g></svg>
            </figure>
            """
    }

    /// One decimal place, no locale.
    static func format(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(abs(tenths % 10))"
    }
}
