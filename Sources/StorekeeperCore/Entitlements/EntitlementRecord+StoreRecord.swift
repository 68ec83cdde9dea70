import FoundationEssentials
import Synchronization

extension EntitlementRecord: StoreRecord {
    /// Entitlement records were first written with slashes escaped; they stay so.
    public static var storeJSONFormatting: JSONEncoder.OutputFormatting { [.sortedKeys] }

    public func storeBytes() throws(StoreError) -> [UInt8] {
        let bytes = try jsonStoreBytes()
        Self.recent.withLock { $0.keep(bytes, self) }
        return bytes
    }

    public init(storeBytes: [UInt8]) throws(StoreError) {
        if let kept = Self.recent.withLock({ $0.record(of: storeBytes) }) {
            self = kept
            return
        }
        try self.init(jsonStoreBytes: storeBytes)
        let record = self
        Self.recent.withLock { $0.keep(storeBytes, record) }
    }

    /// A record is written and, a moment later, read back whole: by the relay, for the customer
    /// state its event carries. Decoding one costs more than half a million instructions, so the
    /// last few records this process wrote or read are kept with their exact bytes, and reading
    /// the very same bytes takes the kept record. Exact (the whole bytes are the key), bounded,
    /// and nothing in it can go stale: other bytes are decoded as ever.
    private static let recent = Mutex(RecentRecords())
}

/// The last `capacity` (bytes, record) pairs, oldest replaced first.
struct RecentRecords: Sendable {
    static let capacity = 8
    private var entries: [(bytes: [UInt8], record: EntitlementRecord)] = []
    private var next = 0

    func record(of bytes: [UInt8]) -> EntitlementRecord? {
        entries.first { $0.bytes == bytes }?.record
    }

    mutating func keep(_ bytes: [UInt8], _ record: EntitlementRecord) {
        guard !entries.contains(where: { $0.bytes == bytes }) else { return }
        if entries.count < Self.capacity {
            entries.append((bytes, record))
        } else {
            entries[next] = (bytes, record)
            next = (next + 1) % Self.capacity
        }
    }
}

extension EntitlementRecord: EventCarrying {}
