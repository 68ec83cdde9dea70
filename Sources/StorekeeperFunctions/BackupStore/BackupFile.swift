import FoundationEssentials
import Glibc
import StorekeeperCore

/// The file operations of one backup, in the order that leaves no partial copy at a final name:
/// an empty temporary file beside the final one (mode 0600: the copy holds everything the
/// store does), the copy written into it, synced, linked at the final name, the folder synced.
/// Every failure says what it was by its errno (`BackupTarget.failure`), never by text.
struct BackupFile {
    let target: BackupTarget
    /// Where the copy is made: hidden (a leading dot), so no listing or rotation mistakes it
    /// for a finished copy.
    let temporary: String

    init(_ target: BackupTarget) {
        self.target = target
        temporary = target.folder + "/." + target.name + ".tmp-" + String(UInt64.random(in: 0 ... .max), radix: 16)
    }

    /// Creates the empty temporary file, so SQLite finds it (and writes its journal with its mode).
    func create() throws {
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw target.failure(errno, "cannot create a file in \(target.folder)") }
        close(descriptor)
    }

    /// The written copy on the disk, then at its final name, then the name itself on the disk.
    /// link(2), not rename(2): both are atomic, but link never replaces a file already there
    /// (EEXIST), so a copy never takes the place of another one.
    func place() throws {
        try sync(temporary, directory: false)
        guard link(temporary, target.path) == 0 else {
            let code = errno
            if code == EEXIST { throw target.exists() }
            throw target.failure(code, "cannot link the copy at \(target.path)")
        }
        unlink(temporary)
        try sync(target.folder, directory: true)
    }

    /// Removes the temporary file and whatever SQLite left beside it (a failed run).
    func discard() {
        for suffix in ["", "-journal", "-wal", "-shm"] { unlink(temporary + suffix) }
    }

    /// The copy's size in bytes.
    func size(at path: String) -> Int64 {
        var status = stat()
        return stat(path, &status) == 0 ? Int64(status.st_size) : 0
    }

    private func sync(_ path: String, directory: Bool) throws {
        let descriptor = open(path, (directory ? O_RDONLY | O_DIRECTORY : O_RDWR) | O_CLOEXEC)
        guard descriptor >= 0 else { throw target.failure(errno, "cannot open \(path) to sync it") }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw target.failure(errno, "cannot sync \(path)") }
    }
}
