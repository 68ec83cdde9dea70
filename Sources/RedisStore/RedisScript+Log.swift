/// The append-only log's scripts (see `LogKeys`; the layout is in RedisStore's table). Every
/// log script takes the same KEYS: [1] ids (hash id → sequence), [2] streams (hash stream →
/// version), [3] last (the last sequence assigned, by INCR), [4] trimmed (the last sequence
/// trimmed: entries kept are exactly trimmed+1 ... last, since sequences are dense and trimming
/// takes the oldest), [5] entries (hash sequence → bytes), [6] meta (hash sequence →
/// "<streamVersion> <recordedAt> <idLength> <id><stream>"; a stream exactly when the version
/// is above 0). Sequences are hash fields in decimal: reading after one is a run of HGETs,
/// never a scan of the log.
extension RedisScript {
    /// ARGV[1] id, ARGV[2] '1' with a stream or '0', ARGV[3] the stream, ARGV[4] the
    /// expected stream version (decimal), ARGV[5] the entry's meta (made by the caller, with
    /// version expected + 1), ARGV[6] the bytes. Returns {1, sequence, version} when
    /// appended, {0, sequence} for a known id, {2, current version} when the stream moved.
    static let appendToLog = RedisScript(name: "appendToLog", source: """
        local known = redis.call('HGET', KEYS[1], ARGV[1])
        if known then return { 0, tonumber(known) } end
        local version = 0
        if ARGV[2] == '1' then
          local current = redis.call('HGET', KEYS[2], ARGV[3]) or '0'
          if current ~= ARGV[4] then return { 2, tonumber(current) } end
          version = redis.call('HINCRBY', KEYS[2], ARGV[3], 1)
        end
        local sequence = redis.call('INCR', KEYS[3])
        local field = string.format('%d', sequence)
        redis.call('HSET', KEYS[1], ARGV[1], field)
        redis.call('HSET', KEYS[5], field, ARGV[6])
        redis.call('HSET', KEYS[6], field, ARGV[5])
        return { 1, sequence, version }
        """)

    /// ARGV[1] after, ARGV[2] limit (positive). Returns { first sequence, meta, bytes, meta,
    /// bytes, ... } for the entries after `after`, consecutive from the first.
    static let readLog = RedisScript(name: "readLog", source: """
        local last = tonumber(redis.call('GET', KEYS[3]) or '0')
        local from = math.max(tonumber(redis.call('GET', KEYS[4]) or '0'), tonumber(ARGV[1])) + 1
        local to = math.min(last, from + tonumber(ARGV[2]) - 1)
        local out = { from }
        -- HMGET in slices: two calls per 500 entries rather than two per entry, and never
        -- more arguments at once than Lua's C stack takes.
        local start = from
        while start <= to do
          local stop = math.min(to, start + 499)
          local fields = {}
          for sequence = start, stop do fields[#fields + 1] = string.format('%d', sequence) end
          local metas = redis.call('HMGET', KEYS[6], unpack(fields))
          local entries = redis.call('HMGET', KEYS[5], unpack(fields))
          for index = 1, #fields do
            if not metas[index] or not entries[index] then
              error('storekeeper: log entry ' .. fields[index] .. ' is missing')
            end
            out[#out + 1] = metas[index]
            out[#out + 1] = entries[index]
          end
          start = stop + 1
        end
        return out
        """, writes: false)

    /// ARGV[1] recorded before (ms), ARGV[2] limit (positive). Removes from the oldest on
    /// while recordedAt is before the cutoff; returns how many went. Their ids are forgotten;
    /// `last` is untouched, so no sequence is handed out twice.
    static let trimLog = RedisScript(name: "trimLog", source: """
        local last = tonumber(redis.call('GET', KEYS[3]) or '0')
        local trimmed = tonumber(redis.call('GET', KEYS[4]) or '0')
        local cutoff = tonumber(ARGV[1])
        local limit = tonumber(ARGV[2])
        local removed = 0
        while removed < limit and trimmed < last do
          local field = string.format('%d', trimmed + 1)
          local meta = redis.call('HGET', KEYS[6], field)
          if not meta then error('storekeeper: log entry ' .. field .. ' is missing') end
          local recorded, length, start = string.match(meta, '^%d+ (%-?%d+) (%d+) ()')
          if not recorded then error('storekeeper: unreadable metadata for log entry ' .. field) end
          if tonumber(recorded) >= cutoff then break end
          local id = string.sub(meta, start, start + tonumber(length) - 1)
          if redis.call('HGET', KEYS[1], id) == field then redis.call('HDEL', KEYS[1], id) end
          redis.call('HDEL', KEYS[5], field)
          redis.call('HDEL', KEYS[6], field)
          trimmed = trimmed + 1
          removed = removed + 1
        end
        if removed > 0 then redis.call('SET', KEYS[4], string.format('%d', trimmed)) end
        return removed
        """)
}
