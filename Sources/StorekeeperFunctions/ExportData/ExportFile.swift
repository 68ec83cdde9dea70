import FoundationEssentials
import FunctionRuntime
import StorekeeperCore
import Glibc

/// Writes an export to a file atomically: a temporary file beside it, written whole and
/// synced, then put in its place. A reader never sees half an export, and a run killed
/// midway leaves at most the temporary file (`<name>.tmp-<random>`), never a short export.
/// Without `replace`, an existing file is never overwritten (the previous export has not
/// been taken away yet): the link that puts the new one in place fails instead.
struct ExportFile {
    let path: String
    let replace: Bool

    /// The file can be written there at all, before any work: an existing file refused
    /// (unless `replace`), a folder that exists.
    func check() throws {
        guard !path.isEmpty, !path.hasSuffix("/") else { throw FunctionError.badInput(message: "file must name a file") }
        if !replace, FileManager.default.fileExists(atPath: path) {
            throw FunctionError.badInput(message: "file exists: \(path) (the previous export was not taken away; remove it, name another file or set replace)")
        }
        var status = stat()
        guard stat(folder, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
            throw FunctionError.badInput(message: "file: no folder \(folder)")
        }
    }

    var folder: String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Writes `bytes`; the file is complete and in place when this returns.
    func write(_ bytes: [UInt8]) throws {
        let temporary = path + ".tmp-" + String(UInt64.random(in: 0 ... .max), radix: 16)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure("cannot create \(temporary)") }
        var written = 0
        var problem: String?
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            while written < buffer.count {
                let step = Glibc.write(descriptor, base + written, buffer.count - written)
                if step < 0 && errno == EINTR { continue }
                guard step > 0 else { problem = "cannot write \(temporary)"; return }
                written += step
            }
        }
        let synced = problem == nil ? fsync(descriptor) == 0 : false
        if problem == nil, !synced { problem = "cannot sync \(temporary)" }
        let saved = errno
        close(descriptor)
        errno = saved
        if let problem {
            let error = failure(problem)
            unlink(temporary)
            throw error
        }
        try place(temporary)
    }

    /// rename(2) replaces; link(2) refuses an existing file (EEXIST), atomically.
    private func place(_ temporary: String) throws {
        defer { unlink(temporary) }
        let placed = replace ? rename(temporary, path) : link(temporary, path)
        guard placed == 0 else {
            if errno == EEXIST { throw FunctionError.badInput(message: "file exists: \(path) (written meanwhile by someone else)") }
            throw failure("cannot put the export at \(path)")
        }
    }

    /// A full disk or an I/O error is worth a retry; anything else is the request's path.
    private func failure(_ what: String) -> FunctionError {
        let code = errno
        let reason = String(cString: strerror(code))
        switch code {
        case ENOSPC, EDQUOT, EIO, EAGAIN, ENOMEM:
            return .temporary(message: "file: \(what): \(reason)")
        default:
            return .badInput(message: "file: \(what): \(reason)")
        }
    }
}
