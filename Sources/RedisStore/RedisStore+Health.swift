import StorekeeperCore

/// `doctor`'s look at the Redis store, with read commands only (HMGET through `get`, CONFIG
/// GET, INFO), all through `run(_:_:)`. The store must not evict: a server that drops keys
/// under memory pressure loses entitlements and queued notifications silently.
extension RedisStore: StoreHealthReporting {
    /// The location is left empty: the adapter never repeats its URL, which may hold a
    /// password; the composition names the store by its redacted STORE_URL.
    public func health() throws(StoreError) -> StoreHealth {
        var health = StoreHealth(kind: .redis, location: "")
        health.layoutMark = try get(StoreKeys.layoutVersion).map { String(decoding: $0.bytes, as: UTF8.self) }
        let memory = try info("memory")
        do throws(StoreError) {
            health.evictionPolicy = try configuredPolicy()
            health.evictionPolicySource = "CONFIG GET"
        } catch {
            guard error.kind == .failed || error.kind == .invalidConfiguration else { throw error }
            // Managed servers often rename or forbid CONFIG (an unknown command, NOPERM); INFO
            // says the same policy and is always allowed.
            health.evictionPolicy = memory["maxmemory_policy"]
            health.evictionPolicySource = health.evictionPolicy == nil ? nil : "INFO memory"
        }
        let persistence = try info("persistence")
        health.appendOnly = persistence["aof_enabled"].map { $0 == "1" }
        health.serverVersion = try info("server")["redis_version"]
        return health
    }

    private func configuredPolicy() throws(StoreError) -> String? {
        let reply = try run(["CONFIG", "GET", "maxmemory-policy"], "health: CONFIG GET maxmemory-policy")
        // RESP2: [name, value]; an empty array when the server knows no such parameter.
        guard case .array(let pair) = reply else { throw Self.unexpected(reply, "health: CONFIG GET") }
        guard pair.count == 2, case .string(let value) = pair[1] else { return nil }
        return String(decoding: value, as: UTF8.self)
    }

    /// One INFO section as its `field:value` lines.
    private func info(_ section: String) throws(StoreError) -> [String: String] {
        let reply = try run(["INFO", section], "health: INFO \(section)")
        guard case .string(let bytes) = reply else { throw Self.unexpected(reply, "health: INFO") }
        var fields: [String: String] = [:]
        for line in String(decoding: bytes, as: UTF8.self).split(whereSeparator: { $0 == "\r\n" || $0 == "\n" || $0 == "\r" }) {
            guard !line.hasPrefix("#"), let colon = line.firstIndex(of: ":") else { continue }
            fields[String(line[..<colon])] = String(line[line.index(after: colon)...])
        }
        return fields
    }
}
