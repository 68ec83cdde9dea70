import FunctionRuntime
import StorekeeperCore

extension CopyStoreFunction {
    public struct Request: RequestBody {
        public enum CodingKeys: String, CodingKey, CaseIterable {
            case verify
        }

        /// true: only compare the two stores, writing nothing.
        var verify: Bool?
    }

    public struct Response: Encodable {
        /// What kind of store the copy went to ("sqlite", "redis"): never its address.
        var target: String
        var copied: StoreCopyCounts?
        var skipped: StoreCopyCounts?
        var expired: Int?
        var pages: Int?
        var resumed: Bool?
        var verification: Verification
        var milliseconds: Int64
        /// copy_differs when the verification found a difference.
        var error: ErrorField?
    }

    public struct Verification: Encodable {
        var passed: Bool
        var compared: Int
        var differenceCount: Int
        /// The first `differenceLimit` of them.
        var differences: [StoreDifference]
    }

    public struct ErrorField: Encodable {
        var code: String
        var message: String
    }

    /// Differences listed in an answer; the count says how many there were in all.
    static let differenceLimit = 20

    static func fields(_ response: Response) -> [String: any LogFieldValue] {
        var fields: [String: any LogFieldValue] = [
            "target": response.target, "passed": response.verification.passed,
            "differences": response.verification.differenceCount, "milliseconds": response.milliseconds,
        ]
        if let copied = response.copied {
            fields["values"] = copied.values
            fields["set_members"] = copied.setMembers
            fields["jobs"] = copied.jobs
            fields["log_entries"] = copied.logEntries
        }
        if let resumed = response.resumed { fields["resumed"] = resumed }
        return fields
    }
}
