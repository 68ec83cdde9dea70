/// Which key layout a store was written in (`StoreKeys`, and each record's spelling), kept in
/// the store itself at `StoreKeys.layoutVersion` as decimal text. Checked once per process,
/// when a function first opens the store, so a binary never reads or writes a layout it does
/// not know:
///
/// - no mark: the store predates the mark (version 1) or is new; the migrations from 1 run
///   and the mark is written;
/// - an older version: the migrations from it run, then the mark is moved on;
/// - a newer version: `.invalidConfiguration` (exit 78), naming both versions; the binary
///   must be upgraded, no retry can help.
///
/// The check costs one store read when the mark is current.
public enum StoreLayout {
    /// The layout this build reads and writes.
    public static let currentVersion = 3

    /// What a store without the mark was written in: the layout before the mark existed.
    static let unmarkedVersion = 1

    /// Brings `store` to this build's layout, or refuses a store from a newer one.
    public static func prepare(_ store: any KeyValueStore, context: StoreMigrationContext) throws(StoreError) {
        try prepare(store, to: currentVersion, migrations: StoreMigrations.all, context: context)
    }

    static func prepare(_ store: any KeyValueStore, to target: Int, migrations: [StoreMigration],
                        context: StoreMigrationContext) throws(StoreError) {
        // Two rounds: a lost race on the mark means another process migrated meanwhile.
        for _ in 0..<2 {
            let stored = try store.get(StoreKeys.layoutVersion)
            let version = try stored.map { (stored) throws(StoreError) in try Self.version(stored.bytes) } ?? unmarkedVersion
            if version > target {
                throw StoreError(.invalidConfiguration, "the store has layout version \(version), written by a newer "
                                 + "Storekeeper; this build knows layout versions up to \(target): upgrade it")
            }
            if stored != nil, version == target { return }
            for migration in migrations where migration.from >= version && migration.from < target {
                // A migration may meet a store another process is migrating too: each is
                // idempotent, and the mark only moves on by compare-and-set.
                try migration.run(store, context)
            }
            if try store.compareAndSet(StoreKeys.layoutVersion, Array(String(target).utf8),
                                       expectedVersion: stored?.version, expiresIn: nil) {
                return
            }
        }
        throw StoreError(.unavailable, "the store's layout mark kept changing while it was checked")
    }

    private static func version(_ bytes: [UInt8]) throws(StoreError) -> Int {
        guard let version = Int(String(decoding: bytes, as: UTF8.self)), version >= 1 else {
            throw StoreError(.failed, "the store's layout mark (\(StoreKeys.layoutVersion)) is not a version number")
        }
        return version
    }
}
