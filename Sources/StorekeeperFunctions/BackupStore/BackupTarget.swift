import FoundationEssentials
import FunctionRuntime
import Glibc
import StorekeeperCore

/// Where one copy goes: a new file in STORE_BACKUP_DIR named by the copy's UTC time (rotated:
/// the newest STORE_BACKUP_KEEP are kept), or the exact file a request names (never rotated,
/// never replaced). Their faults differ in whose they are: a bad STORE_BACKUP_DIR is our
/// configuration (exit 78), a bad requested file the request's (exit 65); a full disk is a
/// retry (exit 75) either way, since it passes once space is freed.
struct BackupTarget {
    let folder: String
    let name: String
    /// True for a STORE_BACKUP_DIR copy.
    let rotated: Bool

    var path: String { folder + "/" + name }

    /// A copy in `folder` named by `milliseconds` since 1970: storekeeper-20261202T031500.250Z.db.
    static func rotated(in folder: String, at milliseconds: Int64) -> BackupTarget {
        let stamp = UTCTimestamp.format(milliseconds: milliseconds).filter { $0 != "-" && $0 != ":" }
        let trimmed = folder.count > 1 && folder.hasSuffix("/") ? String(folder.dropLast()) : folder
        return BackupTarget(folder: trimmed, name: prefix + stamp + suffix, rotated: true)
    }

    static func exact(_ path: String) throws -> BackupTarget {
        guard !path.isEmpty, !path.hasSuffix("/"), !path.utf8.contains(0) else {
            throw FunctionError.badInput(message: "file must name a file")
        }
        guard let slash = path.lastIndex(of: "/") else { return BackupTarget(folder: ".", name: path, rotated: false) }
        let folder = slash == path.startIndex ? "/" : String(path[..<slash])
        return BackupTarget(folder: folder, name: String(path[path.index(after: slash)...]), rotated: false)
    }

    static let prefix = "storekeeper-"
    static let suffix = ".db"

    /// True for exactly the names `rotated(in:at:)` makes (20261202T031500.250Z between the
    /// prefix and the suffix): the only files rotation ever deletes.
    static func isRotatedName(_ name: String) -> Bool {
        guard name.hasPrefix(prefix), name.hasSuffix(suffix) else { return false }
        let stamp = Array(name.utf8.dropFirst(prefix.utf8.count).dropLast(suffix.utf8.count))
        let shape = Array("ddddddddTdddddd.dddZ".utf8)
        guard stamp.count == shape.count else { return false }
        return zip(stamp, shape).allSatisfy { byte, expected in
            expected == UInt8(ascii: "d") ? (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) : byte == expected
        }
    }

    /// Deletes the rotated copies in `folder` beyond the newest `keep` (names sort by time), and
    /// the temporary files of runs that were killed: those named for a copy begun more than a
    /// day before `now` (a run still copying is never that old). Answers the copies deleted.
    /// Regular files only: a link or a folder of such a name stays.
    static func prune(_ folder: String, keep: Int, now: Int64) throws -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        let files = names.filter { name in
            var status = stat()
            return lstat(folder + "/" + name, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
        }
        var removed: [String] = []
        for name in files.filter(isRotatedName).sorted().dropLast(keep) where unlink(folder + "/" + name) == 0 {
            removed.append(name)
        }
        let dayAgo = rotated(in: folder, at: now - 86_400_000).name
        for name in files where name.hasPrefix(".") {
            // "." + a copy's name (always as long as dayAgo) + ".tmp-" + anything.
            let copyName = String(name.dropFirst().prefix(dayAgo.count))
            guard isRotatedName(copyName), name.dropFirst(1 + dayAgo.count).hasPrefix(".tmp-") else { continue }
            if copyName < dayAgo { unlink(folder + "/" + name) }
        }
        return removed
    }

    /// The error for `code` (an errno) met while writing the copy.
    func failure(_ code: Int32, _ what: String) -> any Error {
        let reason = "\(what): \(String(cString: strerror(code)))"
        switch code {
        case ENOSPC, EDQUOT:
            return BackupError(.noSpace, reason)
        case EIO, EAGAIN, ENOMEM, EINTR:
            return FunctionError.temporary(message: reason)
        default:
            return unusable(reason)
        }
    }

    /// A folder or file that cannot be written: whose fault depends on who named it.
    func unusable(_ reason: String) -> any Error {
        rotated ? BackupError(.folderUnusable, "STORE_BACKUP_DIR: " + reason) : FunctionError.badInput(message: "file: " + reason)
    }

    func exists() -> any Error {
        rotated ? FunctionError.temporary(message: "another copy took the name \(name) at the same moment; run again")
            : FunctionError.badInput(message: "file exists: \(path) (a copy never replaces a file; name another)")
    }
}
