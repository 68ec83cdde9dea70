import FunctionRuntime

/// Where `backup-store` writes its copies of the SQLite store and how many it keeps.
extension StorekeeperSettings {
    static let backupDirectory = Setting<String>.text(
        "STORE_BACKUP_DIR", .optional,
        help: "folder for backup-store's copies of the SQLite store, one file per run named by its UTC time (storekeeper-20261202T031500.250Z.db); needed unless the request names a file")

    static let backupKeep = Setting<Int>(
        "STORE_BACKUP_KEEP", .optional, default: "7",
        help: "how many of its copies backup-store keeps in STORE_BACKUP_DIR (7; 1 to 10000): older ones it made are deleted, nothing else"
    ) { text throws(SettingProblem) in
        guard let value = Int(text), (1...10_000).contains(value) else { throw SettingProblem("must be a whole number from 1 to 10000") }
        return value
    }

    static let backups: [SettingDeclaration] = [backupDirectory.declaration, backupKeep.declaration]
}
