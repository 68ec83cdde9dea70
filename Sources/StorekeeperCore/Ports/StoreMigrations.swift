/// One step of the store's layout, from version `from` to `from + 1`. It must be safe to
/// run twice and to run while other processes use the store (a process killed half way runs
/// it again), and harmless on an empty store.
struct StoreMigration: Sendable {
    let from: Int
    /// What it changes, for the reader of this list.
    let summary: String
    let run: @Sendable (any KeyValueStore) throws(StoreError) -> Void
}

/// Every layout migration, in one place, oldest first. A change to `StoreKeys` or to a
/// record's spelling adds its step here and raises `StoreLayout.currentVersion`.
enum StoreMigrations {
    /// Version 1 is the first layout: nothing to migrate yet.
    static let all: [StoreMigration] = []
}
