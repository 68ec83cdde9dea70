import StorekeeperCore

/// The in-memory store's health: it always answers, keeps everything and evicts nothing.
extension MemoryStore: StoreHealthReporting {
    public func health() throws(StoreError) -> StoreHealth {
        var health = StoreHealth(kind: .memory, location: "memory")
        health.layoutMark = try get(StoreKeys.layoutVersion).map { String(decoding: $0.bytes, as: UTF8.self) }
        return health
    }
}
