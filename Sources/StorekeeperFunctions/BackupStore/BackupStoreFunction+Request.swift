import FunctionRuntime
import StorekeeperCore

extension BackupStoreFunction {
    public struct Request: RequestBody {
        public enum CodingKeys: String, CodingKey, CaseIterable {
            case file, restore
        }

        /// An exact file for this copy, outside the rotation (it must not exist).
        var file: String?
        /// A copy to put back in place of the whole store, online.
        var restore: String?
    }

    /// A copy made (`restored` false) or put back (`restored` true).
    public struct Response: Encodable {
        var file: String
        var restored: Bool
        var bytes: Int64
        var pages: Int64
        var pageSize: Int64
        var milliseconds: Int64
        var check: String
        /// Rotated copies only: how many are kept, and the older ones deleted by this run.
        var kept: Int?
        var removed: [String]?
    }

    /// What the request asks, checked before the store is opened.
    enum Plan {
        case backUp(into: String?)
        case restore(from: String)
    }

    static func plan(_ request: Request) throws -> Plan {
        switch (request.file, request.restore) {
        case (.some, .some):
            throw FunctionError.badInput(message: "file and restore cannot be combined: a run makes a copy or restores one")
        case (let file, nil):
            return .backUp(into: file)
        case (nil, .some(let path)):
            guard !path.isEmpty, !path.utf8.contains(0) else { throw FunctionError.badInput(message: "restore must name a file") }
            return .restore(from: path)
        }
    }

    /// The SQLite store's file from STORE_URL; any other store is refused with what to use.
    static func sqlitePath(_ environment: EnvironmentVariables) throws -> String {
        switch try environment.required(RuntimeSettings.storeURL) {
        case .sqlite(let path):
            return path
        default:
            throw BackupError(.storeNotSQLite, """
                backup-store copies the SQLite store only; STORE_URL names a Redis server, which keeps itself: \
                its append-only file (appendonly yes, appendfsync everysec) and RDB snapshots (copy dump.rdb off the \
                machine), see infra/redis/redis.conf; copy-store moves its keys into an SQLite store
                """)
        }
    }

    static func fields(_ response: Response) -> [String: any LogFieldValue] {
        var fields: [String: any LogFieldValue] = [
            "file": response.file, "bytes": response.bytes, "pages": response.pages, "milliseconds": response.milliseconds,
            "check": response.check,
        ]
        if let removed = response.removed { fields["removed"] = removed.count }
        return fields
    }
}
