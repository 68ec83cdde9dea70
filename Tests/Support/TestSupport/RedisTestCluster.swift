import Foundation
import Glibc
import Synchronization

/// A real Redis Cluster of `redis-server` processes on loopback, for one test or suite: each
/// node a `RedisTestServer` in cluster mode with its own port, cluster bus port and folder.
/// The slots are split evenly over the primaries (`CLUSTER ADDSLOTSRANGE`), the nodes meet
/// (`CLUSTER MEET`), each replica follows its primary (`CLUSTER REPLICATE`), and `start`
/// returns once every node sees the cluster `ok` with every replica in place.
///
/// `cluster-node-timeout` is short (1 s), so a killed primary's replica takes over within a
/// few seconds; `durable` gives every node an append-only file fsynced at every write.
public final class RedisTestCluster: @unchecked Sendable {
    /// The primaries, in slot order (the first serves slot 0).
    public let primaries: [RedisTestServer]
    /// `replicas[i]` follow `primaries[i]`.
    public let replicas: [[RedisTestServer]]

    public var nodes: [RedisTestServer] { primaries + replicas.flatMap { $0 } }

    /// `redis://127.0.0.1:<port>` of one node (the first primary by default): any node
    /// names the whole cluster.
    public func url(node: Int = 0) -> String { nodes[node].url() }

    public static func start(primaries count: Int = 3, replicasEach: Int = 0, durable: Bool = false) throws -> RedisTestCluster {
        precondition(count >= 1 && count <= 16)
        var primaries: [RedisTestServer] = []
        var replicas: [[RedisTestServer]] = []
        for _ in 0..<count { primaries.append(try startNode(durable: durable)) }
        for _ in 0..<count {
            var theirs: [RedisTestServer] = []
            for _ in 0..<replicasEach { theirs.append(try startNode(durable: durable)) }
            replicas.append(theirs)
        }
        let cluster = RedisTestCluster(primaries: primaries, replicas: replicas)
        try cluster.form()
        return cluster
    }

    /// A new cluster that lives until the test process exits (its nodes are killed then, and
    /// their folders removed), for tests that hand out only its URL.
    public static func keptUntilExit(primaries count: Int) throws -> RedisTestCluster {
        let cluster = try start(primaries: count)
        kept.withLock { $0.append(cluster) }
        return cluster
    }

    private static let kept: Mutex<[RedisTestCluster]> = {
        atexit {
            for cluster in RedisTestCluster.kept.withLock({ $0 }) {
                for node in cluster.nodes { try? FileManager.default.removeItem(at: node.directory) }
            }
        }
        return Mutex([])
    }()

    private init(primaries: [RedisTestServer], replicas: [[RedisTestServer]]) {
        self.primaries = primaries
        self.replicas = replicas
    }

    /// The node that serves `slot` now, as the first node that answers says; after a
    /// failover it is a former replica.
    public func primary(servingSlot slot: Int, excluding gone: [RedisTestServer] = []) -> RedisTestServer? {
        for node in nodes where !gone.contains(where: { $0 === node }) {
            guard let view = Self.view(of: node) else { continue }
            if let owner = view.first(where: { $0.isPrimary && !$0.failed && $0.slots.contains { $0.contains(slot) } }) {
                return nodes.first { $0.port == owner.port }
            }
        }
        return nil
    }

    /// Waits until every running node reports `cluster_state:ok` and sees every slot served
    /// by a running primary, for at most `seconds`.
    public func waitUntilHealthy(seconds: Double = 30, excluding gone: [RedisTestServer] = []) throws {
        let running = nodes.filter { node in !gone.contains { $0 === node } }
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let healthy = running.allSatisfy { node in
                guard (RedisTestServer.bulkCommand("CLUSTER INFO", port: node.port) ?? "").contains("cluster_state:ok"),
                      let view = Self.view(of: node) else { return false }
                let serving = view.filter { entry in entry.isPrimary && !entry.failed && running.contains { $0.port == entry.port } }
                return serving.reduce(0) { $0 + $1.slots.reduce(0) { $0 + $1.count } } == 16_384
            }
            if healthy { return }
            usleep(50_000)
        }
        throw RedisTestServer.Failure("the Redis Cluster did not become healthy within \(seconds) s")
    }

    /// One line of `CLUSTER NODES`: `<id> <ip:port@bus> <flags> <primary> <ping> <pong>
    /// <epoch> <link> <slot ranges...>`.
    struct NodeEntry {
        var id: String
        var port: Int
        var isPrimary: Bool
        /// The id of the primary a replica follows ("-" for a primary).
        var primaryID: String
        var failed: Bool
        var slots: [ClosedRange<Int>]
    }

    static func view(of node: RedisTestServer) -> [NodeEntry]? {
        guard let text = RedisTestServer.bulkCommand("CLUSTER NODES", port: node.port) else { return nil }
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count >= 8, let colon = fields[1].lastIndex(of: ":") else { return nil }
            let portText = fields[1][fields[1].index(after: colon)...].prefix { $0 != "@" }
            guard let port = Int(portText) else { return nil }
            let flags = fields[2].split(separator: ",")
            let slots: [ClosedRange<Int>] = fields.dropFirst(8).compactMap { range in
                guard !range.hasPrefix("[") else { return nil } // a slot being migrated
                let ends = range.split(separator: "-").compactMap { Int($0) }
                guard let first = ends.first, let last = ends.last, first <= last else { return nil }
                return first...last
            }
            return NodeEntry(id: String(fields[0]), port: port, isPrimary: flags.contains("master"), primaryID: String(fields[3]),
                             failed: flags.contains("fail") || flags.contains("fail?"), slots: slots)
        }
    }

    // MARK: - Private

    /// A node on free ports. The cluster bus port is probed free like the main one, and can
    /// be taken in between the same way (a client connection's local port): then again with
    /// another.
    private static func startNode(durable: Bool) throws -> RedisTestServer {
        var lastError: any Error = RedisTestServer.Failure("no attempt made")
        for _ in 0..<3 {
            var arguments = ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                             "--cluster-node-timeout", "1000", "--cluster-port", String(try RedisTestServer.freePort())]
            if durable { arguments += ["--appendonly", "yes", "--appendfsync", "always"] }
            do {
                return try RedisTestServer.start(arguments: arguments)
            } catch {
                lastError = error
            }
        }
        throw lastError
    }

    private func form() throws {
        let share = 16_384 / primaries.count
        for (index, primary) in primaries.enumerated() {
            let first = index * share
            let last = index == primaries.count - 1 ? 16_383 : first + share - 1
            try command(primary, "CLUSTER ADDSLOTSRANGE \(first) \(last)")
        }
        let first = primaries[0]
        for node in nodes.dropFirst() {
            try command(first, "CLUSTER MEET 127.0.0.1 \(node.port) \(try clusterPort(of: node))")
        }
        try waitUntilKnown()
        for (index, theirs) in replicas.enumerated() {
            let primaryID = try nodeID(of: primaries[index])
            for replica in theirs {
                try command(replica, "CLUSTER REPLICATE \(primaryID)")
            }
        }
        try waitUntilHealthy()
        try waitUntilReplicasFollow()
    }

    /// Every node knows every other by its real id (the handshake done: until then a node
    /// met is listed under a made-up name), so REPLICATE finds its primary.
    private func waitUntilKnown() throws {
        let ids = try nodes.map(nodeID)
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let known = nodes.allSatisfy { node in
                let seen = Set((Self.view(of: node) ?? []).map(\.id))
                return ids.allSatisfy(seen.contains)
            }
            if known { return }
            usleep(20_000)
        }
        throw RedisTestServer.Failure("the Redis Cluster's nodes did not meet within 30 s")
    }

    /// Each replica has completed its first sync (`master_link_status:up`), so a write can be
    /// acknowledged by it.
    private func waitUntilReplicasFollow() throws {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let synced = replicas.joined().allSatisfy { replica in
                (RedisTestServer.bulkCommand("INFO replication", port: replica.port) ?? "")
                    .contains("master_link_status:up")
            }
            // And every node lists each replica under its primary, as CLUSTER SLOTS will.
            let primaryIDs = try primaries.map(nodeID)
            let listed = nodes.allSatisfy { node in
                let view = Self.view(of: node) ?? []
                return primaryIDs.indices.allSatisfy { index in
                    view.filter { $0.primaryID == primaryIDs[index] }.count == replicas[index].count
                }
            }
            // CLUSTER SLOTS, which clients read, leaves a replica out until it has data.
            let replicaPorts = replicas.joined().map { ":\($0.port)\r\n" }
            let announced = replicaPorts.isEmpty || nodes.allSatisfy { node in
                let slots = RedisTestServer.wholeAnswer("CLUSTER SLOTS\r\n", port: node.port)
                return replicaPorts.allSatisfy(slots.contains)
            }
            let following = synced && listed && announced
            if following { return }
            usleep(20_000)
        }
        throw RedisTestServer.Failure("the Redis Cluster's replicas did not sync within 30 s")
    }

    private func command(_ node: RedisTestServer, _ text: String) throws {
        let answer = RedisTestServer.rawCommand(text + "\r\n", port: node.port) ?? ""
        guard answer.hasPrefix("+OK") else {
            throw RedisTestServer.Failure("redis-server on port \(node.port) answered \(answer) to \(text)")
        }
    }

    private func nodeID(of node: RedisTestServer) throws -> String {
        guard let id = RedisTestServer.bulkCommand("CLUSTER MYID", port: node.port), id.count == 40 else {
            throw RedisTestServer.Failure("CLUSTER MYID on port \(node.port) did not answer an id")
        }
        return id
    }

    private func clusterPort(of node: RedisTestServer) throws -> Int {
        guard let index = node.arguments.firstIndex(of: "--cluster-port"), let port = Int(node.arguments[index + 1]) else {
            throw RedisTestServer.Failure("node on port \(node.port) has no --cluster-port")
        }
        return port
    }
}
