/// Every Lua script the adapter runs, in one place. Each runs atomically on the server (no
/// other command interleaves), which is what makes each store operation atomic across any
/// number of processes and hosts. Times come from the server's clock (`TIME`), so every
/// host agrees on when a lease or a backoff ends. Every key a script touches is passed in
/// KEYS and shares one hash tag, so the scripts also run on Redis Cluster.
///
/// Needs Redis 5 or later (ZPOPMIN, and scripts replicated by effect so `TIME` may precede writes).
extension RedisScript {
    // MARK: Values

    /// set, setIfAbsent and compareAndSet in one script: the value and its version live in
    /// one hash, so a write and its version bump cannot be separated.
    ///
    /// KEYS[1] the value's hash (fields `value`, `version`).
    /// ARGV[1] the bytes; ARGV[2] time to live in ms, '' for none; ARGV[3] the condition:
    /// '*' always, '' only while absent, otherwise the version the key must still have.
    /// Returns 1 when written, 0 when the condition failed. A new (or expired) key starts
    /// at version 1, which is why compareAndSet(expectedVersion: nil) succeeds after expiry.
    static let writeValue = RedisScript(name: "writeValue", source: """
        local condition = ARGV[3]
        if condition ~= '*' then
          local current = redis.call('HGET', KEYS[1], 'version')
          if condition == '' then
            if current then return 0 end
          elseif current ~= condition then
            return 0
          end
        end
        redis.call('HSET', KEYS[1], 'value', ARGV[1])
        redis.call('HINCRBY', KEYS[1], 'version', 1)
        if ARGV[2] == '' then
          redis.call('PERSIST', KEYS[1])
        else
          redis.call('PEXPIRE', KEYS[1], ARGV[2])
        end
        return 1
        """)

    // MARK: Queues

    /// Helpers every queue script starts with. The queue's keys, always in this order:
    /// KEYS[1] {q}:jobs (hash id → payload), KEYS[2] {q}:meta (hash id → metadata),
    /// KEYS[3] {q}:ready (sorted set, see below), KEYS[4] {q}:waiting (sorted set id → ms
    /// when it may be claimed again: lease end or backoff end), KEYS[5] {q}:dead (sorted set
    /// id → enqueue sequence), KEYS[6] {q}:sequence (counter), KEYS[7] {q}:enqueued (sorted
    /// set id → enqueue ms of each pending job: one ZADD on enqueue, one ZREM on acknowledge
    /// and burial; the metadata string below is unchanged, so jobs of older builds still parse).
    ///
    /// A job's metadata is one string, "<attempts> <maxAttempts> <priority> <order> <token>":
    /// decimal numbers as the caller gave them (so they come back exactly), the job's place
    /// in line, and its lease token ('-' when nobody holds a lease).
    ///
    /// `order` is 32 hex digits: the priority biased so negative numbers sort first, then the
    /// enqueue sequence. Every member of {q}:ready has score 0 and is `order .. id`; Redis
    /// orders equal scores by member bytes, so ZPOPMIN yields the lowest priority number
    /// first, then the oldest, exactly, for any 64-bit priority (a float score would not).
    private static let queuePrelude = """
        local function now_ms()
          local t = redis.call('TIME')
          return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
        end

        local function read_meta(id)
          local raw = redis.call('HGET', KEYS[2], id)
          if not raw then return nil end
          local attempts, max_attempts, priority, order, token =
            string.match(raw, '^(%d+) (%-?%d+) (%-?%d+) (%x+) (%S+)$')
          if not attempts then error('storekeeper: unreadable metadata for job ' .. id) end
          return { attempts = tonumber(attempts), max_attempts = max_attempts, priority = priority,
                   order = order, token = token }
        end

        local function write_meta(id, m)
          redis.call('HSET', KEYS[2], id, string.format('%d', m.attempts) .. ' ' .. m.max_attempts .. ' ' ..
            m.priority .. ' ' .. m.order .. ' ' .. m.token)
        end

        local function exhausted(m)
          return m.attempts >= tonumber(m.max_attempts)
        end

        -- Dead letters keep their payload and metadata (so the id stays taken) and are
        -- ordered by enqueue sequence, the low 16 hex digits of order: oldest first.
        local function bury(id, m)
          m.token = '-'
          write_meta(id, m)
          redis.call('ZREM', KEYS[3], m.order .. id)
          redis.call('ZREM', KEYS[4], id)
          redis.call('ZADD', KEYS[5], tonumber(string.sub(m.order, 17), 16), id)
          redis.call('ZREM', KEYS[7], id)
        end

        -- ARGV[1] id, ARGV[2] payload, ARGV[3] priority, ARGV[4] maxAttempts,
        -- ARGV[5] the priority as 16 sortable hex digits. An id already known (ready, leased
        -- or dead) is not added again.
        local function enqueue_job()
          if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 0 end
          local order = ARGV[5] .. string.format('%016x', redis.call('INCR', KEYS[6]))
          redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
          write_meta(ARGV[1], { attempts = 0, max_attempts = ARGV[4], priority = ARGV[3], order = order, token = '-' })
          redis.call('ZADD', KEYS[3], 0, order .. ARGV[1])
          redis.call('ZADD', KEYS[7], string.format('%d', now_ms()), ARGV[1])
          return 1
        end

        """

    /// Returns 1 when added, 0 when the id was already known.
    static let enqueue = RedisScript(name: "enqueue", source: queuePrelude + """
        return enqueue_job()
        """)

    /// The value and the job in one step, so a crash cannot keep one without the other.
    /// KEYS[8] the value's hash (same hash tag as the queue); ARGV[6] its bytes, ARGV[7] time
    /// to live in ms or ''. Returns 0 (and changes nothing) when the value already exists;
    /// 1 when written, the job being added unless its id was already known.
    static let setIfAbsentAndEnqueue = RedisScript(name: "setIfAbsentAndEnqueue", source: queuePrelude + """
        if redis.call('EXISTS', KEYS[8]) == 1 then return 0 end
        redis.call('HSET', KEYS[8], 'value', ARGV[6], 'version', 1)
        if ARGV[7] ~= '' then redis.call('PEXPIRE', KEYS[8], ARGV[7]) end
        enqueue_job()
        return 1
        """)

    /// ARGV[1] the lease in ms, ARGV[2] a fresh lease token. Returns nil when nothing is
    /// ready, else { id, payload, attempt, maxAttempts, priority }. A job already claimed
    /// maxAttempts times is dead-lettered on the way and the next one is tried.
    static let claim = RedisScript(name: "claim", source: queuePrelude + """
        local now = now_ms()
        -- Leases that ran out and backoffs that are over: ready again, in their old place.
        local due = redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', string.format('%d', now))
        if #due > 0 then
          for _, id in ipairs(due) do
            local m = read_meta(id)
            if m then redis.call('ZADD', KEYS[3], 0, m.order .. id) end
          end
          redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', string.format('%d', now))
        end
        while true do
          local top = redis.call('ZPOPMIN', KEYS[3])
          if #top == 0 then return false end
          local id = string.sub(top[1], 33)
          local m = read_meta(id)
          if m then
            if exhausted(m) then
              bury(id, m)
            else
              m.attempts = m.attempts + 1
              m.token = ARGV[2]
              write_meta(id, m)
              redis.call('ZADD', KEYS[4], string.format('%d', now + tonumber(ARGV[1])), id)
              return { id, redis.call('HGET', KEYS[1], id), m.attempts, m.max_attempts, m.priority }
            end
          end
        end
        """)

    /// ARGV[1] id, ARGV[2] lease token. Returns 1 when the job was removed, 0 when the token
    /// no longer matches (someone else claimed it since, or it was released or buried). A
    /// lease that ran out but was not claimed again still counts as held.
    static let acknowledge = RedisScript(name: "acknowledge", source: queuePrelude + """
        local m = read_meta(ARGV[1])
        if not m or m.token ~= ARGV[2] then return 0 end
        redis.call('HDEL', KEYS[1], ARGV[1])
        redis.call('HDEL', KEYS[2], ARGV[1])
        redis.call('ZREM', KEYS[3], m.order .. ARGV[1])
        redis.call('ZREM', KEYS[4], ARGV[1])
        redis.call('ZREM', KEYS[7], ARGV[1])
        return 1
        """)

    /// ARGV[1] id, ARGV[2] lease token, ARGV[3] backoff in ms. Returns 1 when given back
    /// (ready after the backoff, or dead-lettered once it has had maxAttempts claims), 0 when
    /// the token no longer matches.
    static let release = RedisScript(name: "release", source: queuePrelude + """
        local m = read_meta(ARGV[1])
        if not m or m.token ~= ARGV[2] then return 0 end
        if exhausted(m) then
          bury(ARGV[1], m)
          return 1
        end
        m.token = '-'
        write_meta(ARGV[1], m)
        redis.call('ZREM', KEYS[3], m.order .. ARGV[1])
        redis.call('ZADD', KEYS[4], string.format('%d', now_ms() + tonumber(ARGV[3])), ARGV[1])
        return 1
        """)

    /// Ready plus leased-or-backing-off jobs, counted in one atomic step.
    static let pendingCount = RedisScript(name: "pendingCount", source: """
        return redis.call('ZCARD', KEYS[3]) + redis.call('ZCARD', KEYS[4])
        """, writes: false)

    /// The enqueue ms of the oldest pending job, false when none. Entries whose job is gone
    /// or dead (left by an older build's acknowledge, which did not know {q}:enqueued) are
    /// dropped on the way, so a stale head cannot make the age grow forever.
    static let oldestPendingEnqueuedAt = RedisScript(name: "oldestPendingEnqueuedAt", source: """
        while true do
          local head = redis.call('ZRANGE', KEYS[7], 0, 0, 'WITHSCORES')
          if #head == 0 then return false end
          if redis.call('HEXISTS', KEYS[1], head[1]) == 1 and not redis.call('ZSCORE', KEYS[5], head[1]) then
            return tonumber(head[2])
          end
          redis.call('ZREM', KEYS[7], head[1])
        end
        """, writes: false)
}
