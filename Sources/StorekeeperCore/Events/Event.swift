import FoundationEssentials

/// One thing that happened to a customer, as the event log keeps it and as it is delivered
/// (deliver-events), listed (list-events) and exported (export-data).
///
/// Built once, in the same atomic step as the change it reports (`PendingEvent`, in the
/// changed record's outbox), and moved into the log by the relay (`EventRelay`), which
/// assigns `sequence` and attaches `customer`: the customer's whole state after the change,
/// as `get-customer` answers it, with a `version` that increases per customer. A receiver that
/// keeps, per `customerId`, only the highest `customer.version` it has seen is always right.
///
/// Every field is always present in the JSON, null when unknown, so a receiver's schema
/// never depends on the type.
public struct Event: Codable, Sendable, Equatable {
    /// Stable and unique: the same event always has the same id (`webhook-id` when delivered).
    public var id: String
    /// Its place in the log: increasing, 1 for the first event ever; 0 before it is in the log.
    public var sequence: Int64
    /// `EventType`'s raw value.
    public var type: String
    /// When it happened: Apple's signed time for what Apple stated, the clock's for what
    /// support did (milliseconds since 1970).
    public var occurredAt: Int64
    /// When Storekeeper recorded it (milliseconds, the function's clock).
    public var recordedAt: Int64
    /// The bundle id.
    public var app: String?
    /// `Production` or `Sandbox`.
    public var environment: String?
    /// Whose event it is: the user id, or `otid:<originalTransactionId>` while no user is
    /// linked to the purchase; nil for an event about no customer (TEST).
    public var customerId: String?
    /// For a TRANSFER: whose the purchase was before (nil when nobody's was recorded).
    public var previousCustomerId: String?
    public var userId: String?
    public var appAccountToken: String?
    public var productId: String?
    public var transactionId: String?
    public var originalTransactionId: String?
    /// For GRANT_ADDED and GRANT_REVOKED: the entitlement and the grant.
    public var entitlement: String?
    public var grantId: String?
    /// The Apple notification it came from, when it came from one.
    public var notificationUUID: String?
    public var notificationType: String?
    public var notificationSubtype: String?
    /// How the change reached Storekeeper: `notification`, `ingest`, `reconciliation`,
    /// `import`, `support`.
    public var source: String
    /// The customer after the change, as get-customer answers it, with `version`; null when
    /// the event is about no customer the store knows.
    public var customer: JSONValue?
    /// The relay's `customer`, still the JSON bytes `CustomerSnapshot` encoded: `encoded()`
    /// splices them in as they are. An event read from the log has `customer` instead.
    var customerJSON: [UInt8]?

    public init(id: String, sequence: Int64 = 0, type: String, occurredAt: Int64, recordedAt: Int64, app: String? = nil,
                environment: String? = nil, customerId: String? = nil, previousCustomerId: String? = nil,
                userId: String? = nil, appAccountToken: String? = nil, productId: String? = nil,
                transactionId: String? = nil, originalTransactionId: String? = nil, entitlement: String? = nil,
                grantId: String? = nil, notificationUUID: String? = nil, notificationType: String? = nil,
                notificationSubtype: String? = nil, source: String, customer: JSONValue? = nil) {
        self.id = id
        self.sequence = sequence
        self.type = type
        self.occurredAt = occurredAt
        self.recordedAt = recordedAt
        self.app = app
        self.environment = environment
        self.customerId = customerId
        self.previousCustomerId = previousCustomerId
        self.userId = userId
        self.appAccountToken = appAccountToken
        self.productId = productId
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.entitlement = entitlement
        self.grantId = grantId
        self.notificationUUID = notificationUUID
        self.notificationType = notificationType
        self.notificationSubtype = notificationSubtype
        self.source = source
        self.customer = customer
    }

    /// The customer's version this event made (`customer.version`); nil without a customer.
    public var customerVersion: Int64? {
        guard case .object(let fields)? = customer, case .number(let version)? = fields["version"] else { return nil }
        return Int64(version)
    }

    /// The event as delivered and listed: its JSON, the same bytes every time.
    public func encoded() throws -> [UInt8] {
        let bytes = Array(try Self.encoder.encode(self))
        guard let customerJSON, customer == nil else { return bytes }
        return try Self.splice(customerJSON, into: bytes)
    }

    /// Sorted keys: the same event always encodes to the same bytes.
    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// Puts the customer's JSON where `"customer":null` is. That sequence occurs once: the key
    /// is the event's own (no other field holds an object), and inside a string a quote is
    /// always escaped.
    static func splice(_ customer: [UInt8], into event: [UInt8]) throws -> [UInt8] {
        let placeholder = Array(#""customer":null"#.utf8)
        let valueOffset = placeholder.count - 4
        guard let start = event.indices.dropLast(placeholder.count - 1).first(where: {
            event[$0..<$0 + placeholder.count].elementsEqual(placeholder)
        }) else {
            throw EncodingError.invalidValue(customer, .init(codingPath: [], debugDescription: "no customer field"))
        }
        return Array(event[..<(start + valueOffset)]) + customer + event[(start + placeholder.count)...]
    }

    /// Whether the event is about a customer whose state it carries (which counts a version).
    var carriesCustomer: Bool { customer != nil || customerJSON != nil }

    public static func decoded(_ bytes: [UInt8]) throws -> Event {
        try JSONDecoder().decode(Event.self, from: Data(bytes))
    }
}

extension Event {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, sequence, type, occurredAt, recordedAt, app, environment, customerId, previousCustomerId, userId,
             appAccountToken, productId, transactionId, originalTransactionId, entitlement, grantId,
             notificationUUID, notificationType, notificationSubtype, source, customer
    }

    /// Unknown fields as null, never left out.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(sequence, forKey: .sequence)
        try container.encode(type, forKey: .type)
        try container.encode(occurredAt, forKey: .occurredAt)
        try container.encode(recordedAt, forKey: .recordedAt)
        let optional: [(CodingKeys, String?)] = [
            (.app, app), (.environment, environment), (.customerId, customerId), (.previousCustomerId, previousCustomerId),
            (.userId, userId), (.appAccountToken, appAccountToken), (.productId, productId), (.transactionId, transactionId),
            (.originalTransactionId, originalTransactionId), (.entitlement, entitlement), (.grantId, grantId),
            (.notificationUUID, notificationUUID), (.notificationType, notificationType),
            (.notificationSubtype, notificationSubtype),
        ]
        for (key, value) in optional { try container.encode(value, forKey: key) }
        try container.encode(source, forKey: .source)
        try container.encode(customer ?? .null, forKey: .customer)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func text(_ key: CodingKeys) throws -> String? { try container.decodeIfPresent(String.self, forKey: key) }
        self.init(id: try container.decode(String.self, forKey: .id),
                  sequence: try container.decodeIfPresent(Int64.self, forKey: .sequence) ?? 0,
                  type: try container.decode(String.self, forKey: .type),
                  occurredAt: try container.decode(Int64.self, forKey: .occurredAt),
                  recordedAt: try container.decode(Int64.self, forKey: .recordedAt),
                  app: try text(.app), environment: try text(.environment), customerId: try text(.customerId),
                  previousCustomerId: try text(.previousCustomerId), userId: try text(.userId),
                  appAccountToken: try text(.appAccountToken), productId: try text(.productId),
                  transactionId: try text(.transactionId), originalTransactionId: try text(.originalTransactionId),
                  entitlement: try text(.entitlement), grantId: try text(.grantId),
                  notificationUUID: try text(.notificationUUID), notificationType: try text(.notificationType),
                  notificationSubtype: try text(.notificationSubtype), source: try container.decode(String.self, forKey: .source))
        let customer = try container.decodeIfPresent(JSONValue.self, forKey: .customer)
        self.customer = customer == .null ? nil : customer
    }
}
