/// The Prometheus text exposition format, version 0.0.4: each family's `# HELP` and `# TYPE`,
/// then its samples, label values escaped (backslash, double quote, line feed).
/// https://prometheus.io/docs/instrumenting/exposition_formats/
public struct PrometheusText {
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    public enum Kind: String {
        case counter, gauge
    }

    public private(set) var text = ""

    public init() {}

    /// Starts a family; its samples follow.
    public mutating func family(_ name: String, _ kind: Kind, help: String) {
        text += "# HELP " + name + " " + Self.escapeHelp(help) + "\n# TYPE " + name + " " + kind.rawValue + "\n"
    }

    public mutating func sample(_ name: String, _ value: Int64) {
        line(name, [], String(value))
    }

    public mutating func sample(_ name: String, _ labels: KeyValuePairs<String, String>, _ value: Int64) {
        line(name, Array(labels), String(value))
    }

    public mutating func sample(_ name: String, _ labels: KeyValuePairs<String, String>, _ value: Double) {
        line(name, Array(labels), Self.format(value))
    }

    private mutating func line(_ name: String, _ labels: [(key: String, value: String)], _ value: String) {
        text += name
        if !labels.isEmpty {
            text += "{" + labels.map { $0.key + "=\"" + Self.escapeLabel($0.value) + "\"" }.joined(separator: ",") + "}"
        }
        text += " " + value + "\n"
    }

    /// By Unicode scalar, not by Character: "\r\n" is one Character and must not hide its line feed.
    static func escapeLabel(_ value: String) -> String {
        escape(value, quote: true)
    }

    static func escapeHelp(_ value: String) -> String {
        escape(value, quote: false)
    }

    private static func escape(_ value: String, quote: Bool) -> String {
        var escaped = String.UnicodeScalarView()
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": escaped.append(contentsOf: "\\\\".unicodeScalars)
            case "\"" where quote: escaped.append(contentsOf: "\\\"".unicodeScalars)
            case "\n": escaped.append(contentsOf: "\\n".unicodeScalars)
            default: escaped.append(scalar)
            }
        }
        return String(escaped)
    }

    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}
