import Glibc
import OpenSSLCrypto
import StorekeeperCore

/// Sends each command to the Redis server that must run it: the one server of `STORE_URL`,
/// or, when that server is a node of a Redis Cluster, the primary serving the command's hash
/// slot (https://redis.io/docs/latest/operate/oss_and_stack/reference/cluster-spec/).
///
/// Which one is found when the store opens: with database 0 (a cluster has no other) the
/// login's round trip also asks `CLUSTER SLOTS`; a server without cluster support refuses
/// it, and everything goes to that server as before.
///
/// On a cluster:
/// - `MOVED` (the slot has a new primary) updates the map, re-reads it whole at the next
///   command, and sends the command there; `ASK` (the slot is migrating) sends it once to the
///   node named, after `ASKING`. Both mean the command did not run, so sending it again is safe.
/// - A primary that cannot be reached before the command is sent, `CLUSTERDOWN`, `TRYAGAIN`
///   and `LOADING` (a failover or a resharding in progress: the command did not run) are waited
///   out for at most `failoverWait`, re-reading the map between tries, so a replica promoted
///   in that time takes the command. After that, they are `.unavailable` (exit 75, HTTP 503).
/// - A command once sent is never sent again by the router: a connection lost or timed out
///   after sending may have run it, and only the caller knows whether repeating it is safe.
/// - Redis replicates asynchronously: a primary killed right after it answered may lose a
///   write that no replica has. So every write to a primary that has replicas is followed, in
///   the same round trip, by `WAIT 1 <timeout/2>`: when no replica has the write in that
///   time the write is `.unavailable`, so that Apple sends its notification again, a queue job
///   comes back, and nothing acknowledged rests on one machine. (The write itself may have
///   run: every write of this store is safe to repeat.)
///
/// Not thread-safe: `RedisStore` serialises every use behind its lock.
struct RedisRouter {
    private let url: RedisURL
    private let tls: TLSClientOptions
    private let timeout: Duration
    private let failoverWait: Duration
    private var topology: Topology

    private enum Topology {
        /// One server; nil after a failure closed its connection (the next command connects).
        case single(RedisConnection?)
        case cluster(Cluster)
    }

    /// The map and one connection per node spoken to so far.
    private struct Cluster {
        var map: RedisClusterMap
        var connections: [RedisClusterMap.Node: RedisConnection] = [:]
        /// Set by a MOVED: the map is re-read whole before the next command.
        var isStale = false
        /// When the map was read: a long-running process (a FastCGI function) reads it again
        /// after `mapLifetime`, so a replica added since is waited for, not only one
        /// present when the process started.
        var readAt = ContinuousClock.now
    }

    private static let mapLifetime: Duration = .seconds(10)

    /// Connects to `url`'s server (logging in), and learns whether it is a cluster node.
    init(url: RedisURL, tls: TLSClientOptions, timeout: Duration, failoverWait: Duration) throws(StoreError) {
        self.url = url
        self.tls = tls
        self.timeout = timeout
        self.failoverWait = failoverWait
        guard url.database == 0 else {
            topology = .single(try RedisConnection(url, tls: tls, timeout: timeout))
            return
        }
        let seed = try RedisConnection(url, tls: tls, timeout: timeout, probe: Self.clusterSlots)
        guard let reply = seed.probeReply, case .array = reply else {
            // "ERR This instance has cluster support disabled": a single server.
            topology = .single(seed)
            return
        }
        let map = try RedisClusterMap(slotsReply: reply, askedHost: url.host)
        var cluster = Cluster(map: map)
        cluster.connections[RedisClusterMap.Node(host: url.host, port: url.port)] = seed
        topology = .cluster(cluster)
    }

    /// True when `STORE_URL` named a node of a Redis Cluster.
    var isCluster: Bool {
        if case .cluster = topology { return true }
        return false
    }

    /// Runs one command on the server for `key`'s hash slot (any server when nil) and returns
    /// its reply, an error reply as a value. `writes`: the command changes data, so on a
    /// cluster it waits for a replica (see the type's comment).
    mutating func send(_ command: [[UInt8]], key: String?, writes: Bool) throws(StoreError) -> RedisValue {
        switch topology {
        case .single(let connection):
            return try sendToSingle(command, connection)
        case .cluster(var cluster):
            // Taken out while it changes, so a throw cannot leave a half-updated copy behind.
            topology = .single(nil)
            defer { topology = .cluster(cluster) }
            return try sendToCluster(command, slot: key.map { RedisHashSlot.of($0) }, writes: writes, &cluster)
        }
    }

    /// Every primary of the cluster, or the one server: for the commands that look at a
    /// server rather than a key (INFO, CONFIG GET, SCAN).
    mutating func sendToEveryPrimary(_ command: [[UInt8]]) throws(StoreError) -> [(node: String, reply: RedisValue)] {
        guard case .cluster(var cluster) = topology else {
            return [(Self.describe(url), try send(command, key: nil, writes: false))]
        }
        topology = .single(nil)
        defer { topology = .cluster(cluster) }
        var replies: [(node: String, reply: RedisValue)] = []
        for node in cluster.map.primaries {
            replies.append((node.description, try Self.exchange([command], on: node, &cluster, url: url, tls: tls, timeout: timeout)[0]))
        }
        return replies
    }

    /// Runs a command about a server (SCAN) on the `index`th primary in slot order (the one
    /// server: index 0), and says how many primaries there are. Nil reply: no such primary.
    mutating func sendToPrimary(at index: Int, _ command: [[UInt8]]) throws(StoreError) -> (reply: RedisValue?, primaries: Int) {
        guard case .cluster(var cluster) = topology else {
            return (index == 0 ? try send(command, key: nil, writes: false) : nil, 1)
        }
        topology = .single(nil)
        defer { topology = .cluster(cluster) }
        let ordered = cluster.map.primariesInSlotOrder
        guard index < ordered.count else { return (nil, ordered.count) }
        return (try Self.exchange([command], on: ordered[index], &cluster, url: url, tls: tls, timeout: timeout)[0], ordered.count)
    }

    // MARK: - One server

    private mutating func sendToSingle(_ command: [[UInt8]], _ current: RedisConnection?) throws(StoreError) -> RedisValue {
        var connection = current
        if connection?.isBroken ?? true {
            topology = .single(nil)
            connection = try RedisConnection(url, tls: tls, timeout: timeout)
            topology = .single(connection)
        }
        guard let live = connection else { throw StoreError(.unavailable, "Redis: no connection") }
        do throws(StoreError) {
            return try live.command(command)
        } catch {
            if live.isBroken { topology = .single(nil) }
            throw error
        }
    }

    // MARK: - A cluster

    private func sendToCluster(_ command: [[UInt8]], slot: Int?, writes: Bool,
                               _ cluster: inout Cluster) throws(StoreError) -> RedisValue {
        let clock = ContinuousClock()
        let giveUp = clock.now + failoverWait
        var askedNode: RedisClusterMap.Node? = nil
        var redirections = 0
        while true {
            if cluster.isStale || clock.now - cluster.readAt > Self.mapLifetime { refreshMap(&cluster) }
            guard let target = askedNode ?? slot.map({ cluster.map.primary(serving: $0) }) ?? cluster.map.primaries.first else {
                // A slot nobody serves: the cluster is forming or failing over.
                guard clock.now < giveUp else {
                    throw StoreError(.unavailable, "Redis Cluster: no primary serves slot \(slot ?? -1)")
                }
                pause(&cluster)
                continue
            }
            var batch: [[[UInt8]]] = askedNode == nil ? [command] : [Self.asking, command]
            let waitsForReplica = writes && cluster.map.replicaCount(of: target) > 0
            if waitsForReplica { batch.append(waitCommand) }
            let replies: [RedisValue]
            do throws(StoreError) {
                _ = try connection(to: target, &cluster)
            } catch {
                // Not sent: the node is down or unreachable. A replica may be taking over.
                guard error.kind == .unavailable, clock.now < giveUp else { throw error }
                askedNode = nil
                pause(&cluster)
                continue
            }
            // Sent from here on: a failure is the caller's, never retried.
            replies = try Self.exchange(batch, on: target, &cluster, url: url, tls: tls, timeout: timeout)
            let reply = replies[askedNode == nil ? 0 : 1]
            askedNode = nil
            switch reply.errorCode {
            case "MOVED"?, "ASK"?:
                redirections += 1
                switch try Self.follow(reply, from: target, redirections: redirections, &cluster) {
                case nil: return reply
                case .moved?: askedNode = nil
                case .ask(let node)?: askedNode = node
                }
            case "CLUSTERDOWN"?, "TRYAGAIN"?, "LOADING"?, "MASTERDOWN"?:
                guard clock.now < giveUp else { return reply }
                pause(&cluster)
            default:
                if waitsForReplica, reply.errorCode == nil {
                    try Self.checkReplicated(replies.last, target: target, waitMilliseconds: waitMilliseconds)
                }
                return reply
            }
        }
    }

    private enum Redirection {
        /// The map was updated: the command goes to the slot's new primary.
        case moved
        /// The slot is migrating: ask this node once, after ASKING.
        case ask(RedisClusterMap.Node)
    }

    /// What a MOVED or ASK reply says to do; nil when it does not parse (the reply is then
    /// the caller's answer as it is).
    private static func follow(_ reply: RedisValue, from target: RedisClusterMap.Node, redirections: Int,
                               _ cluster: inout Cluster) throws(StoreError) -> Redirection? {
        guard case .error(let message) = reply,
              let redirection = RedisClusterMap.redirection(message, askedHost: target.host) else { return nil }
        let (slot, node) = redirection
        guard redirections <= 16 else {
            throw StoreError(.unavailable, "Redis Cluster: redirected \(redirections) times for slot \(slot)")
        }
        guard reply.errorCode == "MOVED" else { return .ask(node) }
        cluster.map.move(slot: slot, to: node)
        cluster.isStale = true
        return .moved
    }

    /// The connection to `node`, opened (and logged in) when there is none or it broke.
    @discardableResult
    private func connection(to node: RedisClusterMap.Node, _ cluster: inout Cluster) throws(StoreError) -> RedisConnection {
        try Self.connection(to: node, &cluster, url: url, tls: tls, timeout: timeout)
    }

    private static func connection(to node: RedisClusterMap.Node, _ cluster: inout Cluster, url: RedisURL,
                                   tls: TLSClientOptions, timeout: Duration) throws(StoreError) -> RedisConnection {
        if let open = cluster.connections[node], !open.isBroken { return open }
        cluster.connections[node] = nil
        var nodeURL = url
        nodeURL.host = node.host
        nodeURL.port = node.port
        let opened = try RedisConnection(nodeURL, tls: tls, timeout: timeout)
        cluster.connections[node] = opened
        return opened
    }

    /// Sends `batch` to `node` in one round trip. A failure drops the connection and marks
    /// the map stale (the node may have failed over), then is thrown.
    private static func exchange(_ batch: [[[UInt8]]], on node: RedisClusterMap.Node, _ cluster: inout Cluster,
                                 url: RedisURL, tls: TLSClientOptions, timeout: Duration) throws(StoreError) -> [RedisValue] {
        let live = try connection(to: node, &cluster, url: url, tls: tls, timeout: timeout)
        do throws(StoreError) {
            let replies = try live.pipeline(batch)
            guard replies.count == batch.count else {
                throw StoreError(.failed, "Redis at \(node): \(replies.count) replies to \(batch.count) commands")
            }
            return replies
        } catch {
            if live.isBroken { cluster.connections[node] = nil }
            cluster.isStale = true
            throw error
        }
    }

    /// Waits a moment for a failover or a resharding, then re-reads the map.
    private func pause(_ cluster: inout Cluster) {
        var pause = timespec(tv_sec: 0, tv_nsec: 100_000_000)
        nanosleep(&pause, nil)
        refreshMap(&cluster)
    }

    /// Asks the nodes it knows, primaries first, for the map; the first readable answer that
    /// covers every slot wins. A node that cannot answer is skipped; when none can, the old map
    /// stays (and the command's own connection failure is what the caller sees).
    private func refreshMap(_ cluster: inout Cluster) {
        cluster.readAt = ContinuousClock.now
        var fallback: RedisClusterMap? = nil
        let seed = RedisClusterMap.Node(host: url.host, port: url.port)
        for node in cluster.map.everyNode + [seed] {
            guard let replies = try? Self.exchange([Self.clusterSlots], on: node, &cluster, url: url, tls: tls, timeout: timeout),
                  let map = try? RedisClusterMap(slotsReply: replies[0], askedHost: node.host) else { continue }
            if map.coversEverySlot {
                cluster.map = map
                cluster.isStale = false
                return
            }
            fallback = fallback ?? map
        }
        if let fallback { cluster.map = fallback }
        cluster.isStale = false
    }

    /// `WAIT`'s answer is how many replicas have every write this connection made.
    private static func checkReplicated(_ reply: RedisValue?, target: RedisClusterMap.Node, waitMilliseconds: Int64) throws(StoreError) {
        guard case .integer(let acknowledged)? = reply else {
            throw StoreError(.unavailable, "Redis at \(target): WAIT did not answer a count")
        }
        guard acknowledged >= 1 else {
            throw StoreError(.unavailable, "Redis at \(target): no replica acknowledged the write within \(waitMilliseconds) ms; not durable yet")
        }
    }

    /// Half the command timeout: WAIT must answer before the read times out.
    private var waitMilliseconds: Int64 { max(RedisStore.milliseconds(timeout, minimum: 2) / 2, 1) }

    private var waitCommand: [[UInt8]] {
        [Array("WAIT".utf8), Array("1".utf8), Array(String(waitMilliseconds).utf8)]
    }

    private static let clusterSlots: [[UInt8]] = [Array("CLUSTER".utf8), Array("SLOTS".utf8)]
    private static let asking: [[UInt8]] = [Array("ASKING".utf8)]

    private static func describe(_ url: RedisURL) -> String {
        url.host.contains(":") ? "[\(url.host)]:\(url.port)" : "\(url.host):\(url.port)"
    }
}
