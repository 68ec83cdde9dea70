import Foundation
import StorekeeperCore

/// The function binaries as the tests drive them directly (not through the web server).
enum Binaries {
    /// Signs every notification in one `simulate-store` process (NDJSON batch); the answers
    /// come back in order.
    static func sign(_ specs: [NotificationSpec]) throws -> [String] {
        var lines = Data()
        for spec in specs {
            lines.append(try JSONSerialization.data(withJSONObject: try spec.signingRequest()))
            lines.append(0x0A)
        }
        let result = try FunctionBinary(name: "simulate-store").run(
            stdin: lines, environment: ["SIMULATE_PKI_DIR": E2E.pki.path])
        guard result.exitCode == 0 else {
            throw Failure("simulate-store exited \(result.exitCode): \(result.stderrText.suffix(2000))")
        }
        let answers = result.stdoutText.split(separator: "\n").map {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["signedData"] as? String
        }
        let signed = answers.compactMap { $0 }
        guard signed.count == specs.count else {
            throw Failure("simulate-store signed \(signed.count) of \(specs.count): \(result.stdoutText.prefix(2000))")
        }
        return signed
    }

    /// Hands every payload to one `receive-notification` process (NDJSON batch), as a fast
    /// stand-in for Apple's POSTs; returns each answer's `status` (or error code) in order.
    static func receive(_ signedPayloads: [String], environment: [String: String]) throws -> (answers: [String], exitCode: Int32) {
        var lines = Data()
        for payload in signedPayloads {
            lines.append(try JSONSerialization.data(withJSONObject: ["signedPayload": payload]))
            lines.append(0x0A)
        }
        let result = try FunctionBinary(name: "receive-notification").run(stdin: lines, environment: environment)
        let answers = result.stdoutText.split(separator: "\n").map { line -> String in
            let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]) ?? [:]
            return object["status"] as? String ?? ((object["error"] as? [String: Any])?["code"] as? String) ?? String(line)
        }
        return (answers, result.exitCode)
    }

    /// One uninterrupted run of the worker.
    static func process(environment: [String: String], budgetSeconds: Double = 50) throws -> WorkerRun {
        let request = try JSONSerialization.data(withJSONObject: ["budgetSeconds": budgetSeconds])
        let result = try FunctionBinary(name: "process-notifications").run(stdin: request, environment: environment)
        var report = try? JSONDecoder().decode(NotificationProcessor.Report.self, from: result.stdout)
        // A measurement, not a count: whole reports are compared without it.
        report?.eventMilliseconds = 0
        return WorkerRun(exitCode: result.exitCode, report: report, stdout: result.stdoutText, stderr: result.stderrText)
    }

    /// `get-entitlements` by appAccountToken, direct door (no token needed in a shell).
    static func entitlements(appAccountToken: String, environment: [String: String]) throws -> [String: Any] {
        let request = try JSONSerialization.data(withJSONObject: ["appAccountToken": appAccountToken])
        let result = try FunctionBinary(name: "get-entitlements").run(stdin: request, environment: environment)
        guard result.exitCode == 0,
              let object = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any] else {
            throw Failure("get-entitlements exited \(result.exitCode): \(result.stdoutText) \(result.stderrText.suffix(1000))")
        }
        return object
    }

    struct WorkerRun: CustomStringConvertible {
        var exitCode: Int32
        var report: NotificationProcessor.Report?
        var stdout: String
        var stderr: String
        var description: String { "exit \(exitCode): \(stdout) \(stderr.suffix(1500))" }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
