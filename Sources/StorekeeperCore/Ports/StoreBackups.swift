/// A store that copies itself whole to a file while other processes keep using it, and takes
/// such a copy back: the SQLite store, through SQLite's online backup API
/// (https://www.sqlite.org/backup.html). A Redis server has its own persistence (the
/// append-only file and RDB snapshots), so the Redis store is not one.
public protocol StoreBackups: AnyObject {
    /// Copies the whole store as of one moment (one read transaction: writers elsewhere go on,
    /// and none of their later commits is half in the copy) into the database file at `path`,
    /// which must be new or empty, then checks the copy (`PRAGMA integrity_check`) and closes
    /// it, leaving one self-contained file (no -wal or -shm beside it). A copy whose check
    /// fails is `.corrupt`; a full disk `.full`; a folder or file that cannot be written
    /// `.readOnly`.
    func backUp(to path: String) throws(StoreError) -> StoreCopy

    /// Checks the copy at `path` (`PRAGMA integrity_check`, a layout this build knows), then
    /// replaces the whole store with it in one write transaction: every other process sees
    /// the store as it was or as the copy is, never a mix. A copy that fails its check
    /// changes nothing and is `.corrupt`.
    func restore(from path: String) throws(StoreError) -> StoreCopy
}

/// What a copy holds, as the backup or the restore found it.
public struct StoreCopy: Sendable, Equatable {
    /// Database pages copied, and their size in bytes.
    public var pages: Int64
    public var pageSize: Int64
    /// The integrity check's answer: "ok".
    public var check: String

    public init(pages: Int64, pageSize: Int64, check: String) {
        self.pages = pages
        self.pageSize = pageSize
        self.check = check
    }
}

/// `backup-store` refused or failed for a reason of its own (a store failure is a
/// `StoreError`, answered as any other).
public typealias BackupError = DomainError<BackupErrorKind>

public enum BackupErrorKind: String, ErrorKind {
    /// STORE_URL names a store that is not SQLite: Redis keeps itself (AOF, RDB snapshots).
    case storeNotSQLite = "store_not_sqlite"
    /// STORE_BACKUP_DIR is not set, is not a folder, or cannot be written: our configuration,
    /// which no retry mends.
    case folderUnusable = "backup_folder_unusable"
    /// The disk of the backup folder is full (or its quota spent): nothing was left behind;
    /// retry once there is room.
    case noSpace = "backup_no_space"

    public var disposition: ErrorDisposition {
        switch self {
        case .storeNotSQLite, .folderUnusable: .configuration
        case .noSpace: .retryLater
        }
    }
}
