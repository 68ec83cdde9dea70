import FunctionRuntime
import StorekeeperCore

/// The store's checks, from what it reports about itself (`StoreHealth`, read without a
/// write: SQLite read-only, Redis with read commands).
extension DoctorFunction {
    /// Less than this free beside an SQLite store is a warning: writes fail once the disk is full.
    static let lowDiskBytes: Int64 = 100 << 20

    func storeChecks() -> [DoctorCheck] {
        let health: StoreHealth
        do {
            health = try context.adapters.storeHealth()
        } catch let error as StoreError {
            return [.problem("store", Self.storeFailure(error))]
        } catch {
            return [.problem("store", Self.message(error))]
        }
        var checks = [layoutCheck(health)]
        switch health.kind {
        case .redis:
            checks.append(Self.evictionCheck(health))
            checks.append(health.appendOnly == true
                ? .ok("store-persistence", "appendonly yes: every write is in the append-only file")
                : .warning("store-persistence", health.appendOnly == false
                    ? "appendonly is off: a restart loses what was written since the last RDB snapshot (infra/redis/redis.conf turns it on)"
                    : "the server did not say whether its append-only file is on"))
        case .sqlite:
            checks.append(health.integrity == "ok"
                ? .ok("store-integrity", "PRAGMA quick_check: ok")
                : .problem("store-integrity", "PRAGMA quick_check found damage: \(health.integrity ?? "no answer") (restore a copy: README, backup-store)"))
            let journal = health.journalMode ?? "unknown"
            checks.append(journal.lowercased() == "wal"
                ? .ok("store-journal", "journal_mode wal: readers never wait for the writer")
                : .warning("store-journal", "journal_mode is \(journal), not wal: readers and the writer block each other (the store sets wal when it creates its schema)"))
            if let free = health.freeBytes {
                let megabytes = free >> 20
                checks.append(free < Self.lowDiskBytes
                    ? .warning("store-disk", "\(megabytes) MB free beside the store: writes fail (503, exit 75) once the disk is full")
                    : .ok("store-disk", "\(megabytes) MB free beside the store"))
            } else {
                checks.append(.skipped("store-disk", "the free space beside the store could not be read"))
            }
        case .memory:
            break
        }
        return checks
    }

    private func layoutCheck(_ health: StoreHealth) -> DoctorCheck {
        let answered = "\(health.kind.rawValue) store \(health.location) answers a read"
            + (health.serverVersion.map { " (Redis \($0))" } ?? "")
        guard let mark = health.layoutMark else {
            return .ok("store", answered + "; no function has opened it yet (the first one writes its layout mark)")
        }
        guard let version = Int(mark) else {
            return .problem("store", answered + "; its layout mark (\(StoreKeys.layoutVersion)) is \"\(mark)\", not a version: another program wrote it")
        }
        if version > StoreLayout.currentVersion {
            return .problem("store", answered + "; layout \(version) was written by a newer Storekeeper; this build knows up to \(StoreLayout.currentVersion): upgrade the binaries")
        }
        return .ok("store", answered + "; layout \(version)" + (version < StoreLayout.currentVersion ? " (the next function to open it migrates it to \(StoreLayout.currentVersion))" : ""))
    }

    static func evictionCheck(_ health: StoreHealth) -> DoctorCheck {
        guard let policy = health.evictionPolicy else {
            return .warning("store-eviction", "the server would tell neither CONFIG GET maxmemory-policy nor INFO memory: make sure it is noeviction")
        }
        let source = health.evictionPolicySource ?? "the server"
        guard policy == "noeviction" else {
            return .problem("store-eviction", "maxmemory-policy is \(policy) (\(source)): Redis drops keys when memory is full, losing entitlements and queued notifications; set maxmemory-policy noeviction")
        }
        return .ok("store-eviction", "maxmemory-policy noeviction (\(source)): a full server refuses writes rather than drop keys")
    }

    /// Why the store could not be read, in the words of its kind.
    static func storeFailure(_ error: StoreError) -> String {
        switch error.kind {
        case .invalidConfiguration:
            return "STORE_URL or STORE_TLS_* are wrong: \(error.reason)"
        case .unavailable:
            return "the store does not answer: \(error.reason)"
        case .corrupt:
            return "the store's file is damaged or not a database: \(error.reason)"
        default:
            return "the store failed: \(error.reason)"
        }
    }
}
