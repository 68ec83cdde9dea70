import Foundation

/// `prometheus-client`'s own parser (PyPI, which `make deps` installs into var/python) reading
/// a text exposition through Tests/Support/peers/prometheus_parse.py: the metrics tests check
/// what a Prometheus client reads, not what our own code thinks it wrote.
public enum PrometheusParser {
    public struct Sample: Sendable {
        public var name: String
        public var labels: [String: String]
        public var value: Double
    }

    public struct Family: Sendable {
        public var name: String
        public var type: String
        public var help: String
        public var samples: [Sample]
    }

    static let script = PythonPeers.script("peers/prometheus_parse.py")
    static var environment: [String: String] { PythonPeers.environment }

    /// A python3 that imports the parser from var/python, or nil.
    public static let python: String? = PythonPeers.python(importing: "prometheus_client.parser")

    /// The families the parser reads in `text`; throws with the parser's message when it refuses it.
    public static func parse(_ text: String) throws -> [Family] {
        guard let python else { throw SpawnedProcess.Failure("prometheus-client is not installed in var/python (make deps)") }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("prometheus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("metrics.txt")
        let output = folder.appendingPathComponent("out.json")
        try Data(text.utf8).write(to: input)
        let process = try SpawnedProcess.spawn(python, [script], environment: environment, stdin: input.path,
                                               stdout: output.path, stderr: output.path)
        let ended = process.waitOrKill(limit: 60)
        let answer = (try? Data(contentsOf: output)).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
        guard ended.termination == .exited(0), let families = answer?["families"] as? [[String: Any]] else {
            throw SpawnedProcess.Failure("prometheus_parse.py refused the text (\(ended.termination)): \(answer ?? [:])")
        }
        return families.map { family in
            Family(name: family["name"] as? String ?? "", type: family["type"] as? String ?? "", help: family["help"] as? String ?? "",
                   samples: (family["samples"] as? [[String: Any]] ?? []).map { sample in
                       Sample(name: sample["name"] as? String ?? "", labels: sample["labels"] as? [String: String] ?? [:],
                              value: Self.number(sample["value"]))
                   })
        }
    }
}

extension PrometheusParser {
    /// A JSON number, or Prometheus' spelling of the values JSON has none for.
    static func number(_ value: Any?) -> Double {
        switch value {
        case let number as NSNumber: number.doubleValue
        case "+Inf" as String: .infinity
        case "-Inf" as String: -.infinity
        default: .nan
        }
    }
}

extension [PrometheusParser.Family] {
    /// The value of the one sample named `name` whose labels include `labels`; nil when none.
    public func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        let matching = flatMap(\.samples).filter { sample in
            sample.name == name && labels.allSatisfy { sample.labels[$0.key] == $0.value }
        }
        return matching.count == 1 ? matching[0].value : nil
    }
}
