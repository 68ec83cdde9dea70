import FunctionRuntime
import StorekeeperCore

extension DoctorFunction {
    public struct Request: RequestBody {
        public enum CodingKeys: String, CodingKey, CaseIterable {
            case notificationURL
        }

        /// The public URL Apple posts notifications to (…/appstore/notifications), probed from
        /// here; `--notification-url` on the command line says the same.
        var notificationURL: String?
    }

    /// `ok` is false when any check is a problem; warnings and skipped checks leave it true.
    public struct Response: Encodable {
        var ok: Bool
        var checks: [DoctorCheck]
    }

    /// What the command line asks beyond the request: plain lines for people, a URL to probe.
    struct Options {
        var text = false
        var notificationURL: String?

        init(_ arguments: [String]) throws {
            var remaining = arguments[...]
            while let argument = remaining.popFirst() {
                switch argument {
                case "--text":
                    text = true
                case "--notification-url":
                    guard let url = remaining.popFirst(), !url.hasPrefix("--") else {
                        throw FunctionError.badInput(message: "--notification-url needs a URL")
                    }
                    notificationURL = url
                default:
                    if argument.hasPrefix("--notification-url=") {
                        notificationURL = String(argument.dropFirst("--notification-url=".count))
                    } else {
                        throw FunctionError.badInput(message: "unknown option \(argument) (doctor takes --text and --notification-url URL)")
                    }
                }
            }
        }
    }

    /// The URL to probe, from the request or the command line (the request's wins: it is the
    /// more specific of the two), checked to be http(s) before anything is sent.
    static func notificationURL(_ request: Request, _ options: Options) throws -> String? {
        guard let url = request.notificationURL ?? options.notificationURL else { return nil }
        let lowered = url.lowercased()
        guard lowered.hasPrefix("https://") || lowered.hasPrefix("http://"), url.count > "http://".count,
              !url.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
            throw FunctionError.badInput(message: "notificationURL must be an http(s) URL")
        }
        return url
    }

    /// People's lines: one a check, then the verdict.
    static func text(_ response: Response) -> String {
        var lines = response.checks.map { check in
            let status = check.status.rawValue.uppercased()
            return status + String(repeating: " ", count: max(1, 9 - status.count)) + check.name + ": " + check.detail
        }
        let problems = response.checks.filter { $0.status == .problem }.count
        let warnings = response.checks.filter { $0.status == .warning }.count
        lines.append(problems == 0
            ? "doctor: no problem found" + (warnings == 0 ? "" : " (\(warnings) warning\(warnings == 1 ? "" : "s"))")
            : "doctor: \(problems) problem\(problems == 1 ? "" : "s") to fix" + (warnings == 0 ? "" : ", \(warnings) warning\(warnings == 1 ? "" : "s")"))
        return lines.joined(separator: "\n") + "\n"
    }
}
