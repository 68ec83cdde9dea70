import StorekeeperCore

/// Which primary of a Redis Cluster serves each hash slot, and how many replicas each primary
/// has, as `CLUSTER SLOTS` told it
/// (https://redis.io/docs/latest/commands/cluster-slots/). The router sends each command to
/// its slot's primary, and waits for a replica (`WAIT`) after a write on a primary that has
/// one.
struct RedisClusterMap: Equatable {
    /// host:port of one node, as the cluster announces it.
    struct Node: Hashable, CustomStringConvertible {
        var host: String
        var port: Int

        var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
    }

    /// For each slot, its primary's index in `primaries`; nil while no node serves it.
    private var owners: [Int?]
    private(set) var primaries: [Node]
    /// Replicas per primary: a write waits for one when there is one.
    private(set) var replicas: [Node: [Node]]

    /// Reads a `CLUSTER SLOTS` reply. A node announced without an address ("" or "?", a
    /// node that does not know its own) is the one asked, `askedHost`.
    init(slotsReply reply: RedisValue, askedHost: String) throws(StoreError) {
        owners = Array(repeating: nil, count: RedisHashSlot.count)
        primaries = []
        replicas = [:]
        guard case .array(let ranges) = reply else { throw Self.malformed("not an array") }
        for range in ranges {
            guard case .array(let fields) = range, fields.count >= 3,
                  case .integer(let first) = fields[0], case .integer(let last) = fields[1],
                  first >= 0, first <= last, last < RedisHashSlot.count else {
                throw Self.malformed("a slot range is not [start, end, primary, replicas...]")
            }
            let primary = try Self.node(fields[2], askedHost: askedHost)
            let index: Int
            if let known = primaries.firstIndex(of: primary) {
                index = known
            } else {
                index = primaries.count
                primaries.append(primary)
            }
            for slot in Int(first)...Int(last) { owners[slot] = index }
            var theirs = replicas[primary] ?? []
            for field in fields.dropFirst(3) {
                let replica = try Self.node(field, askedHost: askedHost)
                if !theirs.contains(replica) { theirs.append(replica) }
            }
            replicas[primary] = theirs
        }
    }

    /// The primaries by the first slot each serves: the same order in every process and
    /// after a failover (a promoted replica serves its primary's slots), so a walk of every
    /// primary (copy-store's SCAN) can stop in one process and go on in another.
    var primariesInSlotOrder: [Node] {
        var seen: Set<Int> = []
        var ordered: [Node] = []
        for owner in owners {
            guard let owner, seen.insert(owner).inserted else { continue }
            ordered.append(primaries[owner])
        }
        return ordered
    }

    func primary(serving slot: Int) -> Node? {
        owners[slot].map { primaries[$0] }
    }

    func replicaCount(of primary: Node) -> Int {
        replicas[primary]?.count ?? 0
    }

    /// True when every slot has a primary: a cluster whose map has holes is still forming or
    /// failing over.
    var coversEverySlot: Bool { !owners.contains(nil) }

    /// Every node the map names, primaries first: where a fresh map may be asked for.
    var everyNode: [Node] {
        var nodes = primaries
        for primary in primaries {
            for replica in replicas[primary] ?? [] where !nodes.contains(replica) { nodes.append(replica) }
        }
        return nodes
    }

    /// A MOVED redirection: `slot` is served by `node` from now on (until the next full
    /// read of the map, which the router then makes).
    mutating func move(slot: Int, to node: Node) {
        if let index = primaries.firstIndex(of: node) {
            owners[slot] = index
        } else {
            owners[slot] = primaries.count
            primaries.append(node)
        }
    }

    /// The node of a MOVED or ASK error reply: `MOVED <slot> <host>:<port>`, the host
    /// possibly empty (the node that answered) or an IPv6 address (the last colon splits).
    static func redirection(_ message: String, askedHost: String) -> (slot: Int, node: Node)? {
        let words = message.split(separator: " ")
        guard words.count == 3, let slot = Int(words[1]), slot >= 0, slot < RedisHashSlot.count,
              let colon = words[2].lastIndex(of: ":"), let port = Int(words[2][words[2].index(after: colon)...]) else {
            return nil
        }
        var host = String(words[2][..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return (slot, Node(host: host.isEmpty ? askedHost : host, port: port))
    }

    private static func node(_ value: RedisValue, askedHost: String) throws(StoreError) -> Node {
        guard case .array(let fields) = value, fields.count >= 2,
              case .string(let hostBytes) = fields[0], case .integer(let port) = fields[1], port > 0, port < 65_536 else {
            throw malformed("a node is not [host, port, ...]")
        }
        let host = String(decoding: hostBytes, as: UTF8.self)
        return Node(host: host.isEmpty || host == "?" ? askedHost : host, port: Int(port))
    }

    private static func malformed(_ why: String) -> StoreError {
        StoreError(.failed, "Redis Cluster: CLUSTER SLOTS answered a map this adapter cannot read (\(why))")
    }
}
