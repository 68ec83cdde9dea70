import FoundationEssentials
import FunctionRuntime
import Glibc
import StorekeeperCore

/// `backup-store`: an online, consistent copy of the SQLite store to a file (SQLite's backup
/// API, one read transaction, while the other functions go on writing), checked, synced and
/// put at its final name only once whole; or, asked to `restore`, a copy put back in place of
/// the whole store in one transaction.
public final class BackupStoreFunction: TypedFunction {
    public static let descriptor = FunctionDescriptor(
        name: "backup-store",
        route: nil,
        method: "POST",
        visibility: .internal,
        summary: "An online, consistent copy of the SQLite store to a file, checked and synced, the newest STORE_BACKUP_KEEP kept; or a copy restored in place of the store.",
        request: """
            {} | {"file": "<path>"} | {"restore": "<path>"}
              {}: a copy into STORE_BACKUP_DIR named by its UTC time (storekeeper-20261202T031500.250Z.db);
              then the copies of that name beyond the newest STORE_BACKUP_KEEP are deleted, and the temporary
              files of runs killed over a day before (no other file).
              file: the copy at exactly this path instead (outside the rotation; never over an existing file).
              The copy is made in a hidden temporary file beside it, checked (PRAGMA integrity_check),
              synced, linked at its name and the folder synced: a name never shows a partial copy.
              restore: checks that copy, then replaces the whole store with it in one transaction
              (the other functions may keep running: they see the store before or after, never a mix);
              what was written after the copy was made is gone (see the README's restore steps).
            """,
        response: """
            {"file", "restored": false, "bytes", "pages", "pageSize", "milliseconds", "check": "ok",
             "kept", "removed": [names]}   (kept and removed for STORE_BACKUP_DIR copies only)
              store_not_sqlite: STORE_URL names Redis (use its AOF and RDB snapshots): 500, exit 78.
              backup_folder_unusable: STORE_BACKUP_DIR unset, missing or not writable: 500, exit 78.
              backup_no_space: the backup folder's disk is full; nothing was left: 503, exit 75.
              invalid_request: a file that exists or cannot be written, a restore copy that fails its
              check or is not a store: 400, exit 65. A store failure (a copy of a damaged store
              fails its check too): 503, exit 75.
            """,
        variables: [
            .declared(RuntimeSettings.storeURL, "the SQLite store copied (sqlite:<path>); a redis:// URL is refused"),
            .declared(StorekeeperSettings.backupDirectory), .declared(StorekeeperSettings.backupKeep),
        ]
    )

    private let context: FunctionContext

    public init(context: FunctionContext) throws {
        self.context = context
    }

    public func handle(_ request: Request, call _: FunctionRequest) throws -> Reply<Response> {
        let plan = try Self.plan(request)
        let storePath = try Self.sqlitePath(context.environment)
        let started = context.clock.monotonic()
        var response: Response
        switch plan {
        case .backUp(let file):
            let target = try file.map(BackupTarget.exact) ?? rotatedTarget()
            response = try backUp(into: target, started: started)
            if target.rotated {
                let keep = try context.environment.required(StorekeeperSettings.backupKeep)
                let removed = try BackupTarget.prune(target.folder, keep: keep, now: context.clock.realNow().millisecondsSince1970)
                response.kept = keep
                response.removed = removed
            }
            context.log.info("store_backed_up", Self.fields(response))
        case .restore(let path):
            guard path != storePath else { throw FunctionError.badInput(message: "restore names the store itself") }
            response = try restore(from: path, started: started)
            context.log.warning("store_restored", Self.fields(response))
        }
        return Reply(response)
    }

    private func rotatedTarget() throws -> BackupTarget {
        guard let folder = try context.environment.value(StorekeeperSettings.backupDirectory), !folder.isEmpty else {
            throw BackupError(.folderUnusable, "STORE_BACKUP_DIR is not set: name the folder for the copies (or a file in the request)")
        }
        return BackupTarget.rotated(in: folder, at: context.clock.realNow().millisecondsSince1970)
    }

    private func backUp(into target: BackupTarget, started: Duration) throws -> Response {
        let file = BackupFile(target)
        try file.create()
        do {
            let copy = try backups().backUp(to: file.temporary)
            try file.place()
            return Response(file: target.path, restored: false, bytes: file.size(at: target.path), pages: copy.pages,
                            pageSize: copy.pageSize, milliseconds: (context.clock.monotonic() - started).wholeMilliseconds,
                            check: copy.check)
        } catch let error as StoreError where error.kind == .full {
            file.discard()
            throw BackupError(.noSpace, "no room for the copy in \(target.folder): \(error.reason)")
        } catch let error as StoreError where error.kind == .readOnly {
            file.discard()
            throw target.unusable("cannot write the copy: \(error.reason)")
        } catch {
            file.discard()
            throw error
        }
    }

    private func restore(from path: String, started: Duration) throws -> Response {
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw FunctionError.badInput(message: "restore: no file \(path)")
        }
        let copy: StoreCopy
        do {
            copy = try backups().restore(from: path)
        } catch let error as StoreError where error.kind == .corrupt {
            throw FunctionError.badInput(message: "restore: \(error.reason)")
        }
        return Response(file: path, restored: true, bytes: Int64(status.st_size), pages: copy.pages, pageSize: copy.pageSize,
                        milliseconds: (context.clock.monotonic() - started).wholeMilliseconds, check: copy.check)
    }

    /// The store, as the one adapter that copies itself (SQLite: `sqlitePath` has said so).
    private func backups() throws -> any StoreBackups {
        guard let store = try context.adapters.store() as? any StoreBackups else {
            throw BackupError(.storeNotSQLite, "this process's store cannot make copies of itself")
        }
        return store
    }
}
