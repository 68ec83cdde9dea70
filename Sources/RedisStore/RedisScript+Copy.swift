/// The scripts of copy-store's walk and writes (`RedisStore+Copy.swift`), over the queue and
/// log layouts of RedisScript+Catalogue.swift and RedisScript+Log.swift. Each touches one
/// key, or the keys of one queue or one log (one hash tag), so each also runs on a cluster.
extension RedisScript {
    /// KEYS[1] any key. Returns {type} or, for a value's hash, {'hash', bytes, PTTL}: what a
    /// walk needs of a key in one round trip.
    static let describeKey = RedisScript(name: "describeKey", source: """
        local kind = redis.call('TYPE', KEYS[1])['ok']
        if kind == 'hash' then
          local value = redis.call('HGET', KEYS[1], 'value')
          if value then return { kind, value, redis.call('PTTL', KEYS[1]) } end
        end
        return { kind }
        """)

    /// KEYS[1] a set; ARGV the members to look for. Returns those it does not hold (all of
    /// them when the key is no set).
    static let missingMembers = RedisScript(name: "missingMembers", source: """
        local missing = {}
        local isSet = redis.call('TYPE', KEYS[1])['ok'] == 'set'
        for _, member in ipairs(ARGV) do
          if not isSet or redis.call('SISMEMBER', KEYS[1], member) == 0 then missing[#missing + 1] = member end
        end
        return missing
        """)

    /// The queue's KEYS; ARGV[1] id. Returns false, or { payload, metadata, 1 when dead else
    /// 0, the waiting score or '', the enqueue time or '', the server's now in ms }.
    static let readJob = RedisScript(name: "readJob", source: """
        local payload = redis.call('HGET', KEYS[1], ARGV[1])
        if not payload then return false end
        local t = redis.call('TIME')
        local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
        local dead = redis.call('ZSCORE', KEYS[5], ARGV[1])
        return { payload, redis.call('HGET', KEYS[2], ARGV[1]) or '', dead and 1 or 0,
                 redis.call('ZSCORE', KEYS[4], ARGV[1]) or '', redis.call('ZSCORE', KEYS[7], ARGV[1]) or '',
                 string.format('%d', now) }
        """)

    /// The queue's KEYS; ARGV[1] id, [2] payload, [3] priority, [4] maxAttempts, [5] the
    /// priority as 16 sortable hex digits, [6] attempts, [7] 'ready', 'waiting' or 'dead',
    /// [8] the waiting score (ms), [9] the enqueue time (ms) or ''. Puts the job exactly so,
    /// without a lease; a job of that id keeps its enqueue sequence (its place in line), a new
    /// one takes the next, as enqueue gives it.
    static let putJob = RedisScript(name: "putJob", source: """
        local id = ARGV[1]
        local old = redis.call('HGET', KEYS[2], id)
        local sequence
        if old then
          local order = string.match(old, '^%d+ %-?%d+ %-?%d+ (%x+) %S+$')
          if not order then error('storekeeper: unreadable metadata for job ' .. id) end
          redis.call('ZREM', KEYS[3], order .. id)
          sequence = string.sub(order, 17)
        else
          sequence = string.format('%016x', redis.call('INCR', KEYS[6]))
        end
        redis.call('ZREM', KEYS[4], id)
        redis.call('ZREM', KEYS[5], id)
        redis.call('ZREM', KEYS[7], id)
        local order = ARGV[5] .. sequence
        redis.call('HSET', KEYS[1], id, ARGV[2])
        redis.call('HSET', KEYS[2], id, ARGV[6] .. ' ' .. ARGV[4] .. ' ' .. ARGV[3] .. ' ' .. order .. ' -')
        if ARGV[7] == 'ready' then
          redis.call('ZADD', KEYS[3], 0, order .. id)
        elseif ARGV[7] == 'waiting' then
          redis.call('ZADD', KEYS[4], ARGV[8], id)
        else
          redis.call('ZADD', KEYS[5], tonumber(sequence, 16), id)
        end
        if ARGV[7] ~= 'dead' and ARGV[9] ~= '' then redis.call('ZADD', KEYS[7], ARGV[9], id) end
        return 1
        """)

    /// The log's KEYS; ARGV[1] the last sequence it must have reached, [2] the last sequence
    /// trimmed. Raises `last`, never lowers it; entries at or below the new trim point are
    /// forgotten as trimLog forgets them (looked for only when the log holds any).
    static let putLogBounds = RedisScript(name: "putLogBounds", source: """
        local last = tonumber(redis.call('GET', KEYS[3]) or '0')
        if tonumber(ARGV[1]) > last then redis.call('SET', KEYS[3], ARGV[1]) end
        local trimmed = tonumber(redis.call('GET', KEYS[4]) or '0')
        local wanted = tonumber(ARGV[2])
        if wanted <= trimmed then return 0 end
        if redis.call('HLEN', KEYS[6]) > 0 then
          for sequence = trimmed + 1, wanted do
            local field = string.format('%d', sequence)
            local meta = redis.call('HGET', KEYS[6], field)
            if meta then
              local length, start = string.match(meta, '^%d+ %-?%d+ (%d+) ()')
              if not length then error('storekeeper: unreadable metadata for log entry ' .. field) end
              local id = string.sub(meta, start, start + tonumber(length) - 1)
              if redis.call('HGET', KEYS[1], id) == field then redis.call('HDEL', KEYS[1], id) end
              redis.call('HDEL', KEYS[5], field)
              redis.call('HDEL', KEYS[6], field)
            end
          end
        end
        redis.call('SET', KEYS[4], ARGV[2])
        return 1
        """)

    /// The log's KEYS; ARGV in fours: sequence, id, metadata (as appendToLog writes it),
    /// bytes. Puts each entry at its sequence unless its id is there already; returns how many
    /// it put. The id at another sequence, or another entry at the sequence, is an error.
    static let putLogEntries = RedisScript(name: "putLogEntries", source: """
        local written = 0
        for index = 1, #ARGV, 4 do
          local field, id = ARGV[index], ARGV[index + 1]
          local known = redis.call('HGET', KEYS[1], id)
          if known then
            if known ~= field then
              return redis.error_reply('ERR storekeeper: log entry ' .. id .. ' is at ' .. known .. ', not ' .. field)
            end
          else
            if redis.call('HEXISTS', KEYS[6], field) == 1 then
              return redis.error_reply('ERR storekeeper: the log holds another entry at ' .. field)
            end
            redis.call('HSET', KEYS[1], id, field)
            redis.call('HSET', KEYS[5], field, ARGV[index + 3])
            redis.call('HSET', KEYS[6], field, ARGV[index + 2])
            if tonumber(field) > tonumber(redis.call('GET', KEYS[3]) or '0') then redis.call('SET', KEYS[3], field) end
            written = written + 1
          end
        end
        return written
        """)
}
