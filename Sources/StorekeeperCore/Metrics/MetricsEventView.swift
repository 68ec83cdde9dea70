import FoundationEssentials

/// What the aggregator reads of one event-log entry: the type, the day, the app and
/// environment, and of each subscription of the customer the fields its state comes from.
/// Decoded straight from the entry's bytes into these few fields (the rest of the customer
/// state is skipped, not built), which is most of what counting costs. Every field is read
/// leniently: an odd value is unknown, never an error that would stop the count at that event.
struct MetricsEventView: Decodable {
    var type: String
    var occurredAt: Int64
    var app: String?
    var environment: String?
    var subscriptions: [String: Subscription] = [:]

    struct Subscription: Decodable {
        var originalTransactionId: String?
        var bundleId: String?
        var productId: String?
        var status: String?
        var willRenew: Bool?
        var periodType: String?
        var environment: String?
        var entitlements: [String]?
        var latest: Period?

        enum CodingKeys: String, CodingKey {
            case originalTransactionId, bundleId, productId, status, willRenew, periodType, environment, entitlements, transactions
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            originalTransactionId = try? container.decodeIfPresent(String.self, forKey: .originalTransactionId)
            bundleId = try? container.decodeIfPresent(String.self, forKey: .bundleId)
            productId = try? container.decodeIfPresent(String.self, forKey: .productId)
            status = try? container.decodeIfPresent(String.self, forKey: .status)
            willRenew = try? container.decodeIfPresent(Bool.self, forKey: .willRenew)
            periodType = try? container.decodeIfPresent(String.self, forKey: .periodType)
            environment = try? container.decodeIfPresent(String.self, forKey: .environment)
            entitlements = try? container.decodeIfPresent([String].self, forKey: .entitlements)
            // Oldest first: the latest period decides.
            latest = (try? container.decodeIfPresent([Period].self, forKey: .transactions))?.last
        }
    }

    /// A period's price and dates, as `TransactionFacts` encodes them.
    struct Period: Decodable {
        var price: Int64?
        var currency: String?
        var purchaseDate: Int64?
        var expiresDate: Int64?

        enum CodingKeys: String, CodingKey { case price, currency, purchaseDate, expiresDate }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            price = try? container.decodeIfPresent(Int64.self, forKey: .price)
            currency = try? container.decodeIfPresent(String.self, forKey: .currency)
            purchaseDate = try? container.decodeIfPresent(Int64.self, forKey: .purchaseDate)
            expiresDate = try? container.decodeIfPresent(Int64.self, forKey: .expiresDate)
        }
    }

    private struct Customer: Decodable {
        var subscriptions: [String: Subscription]?
    }

    enum CodingKeys: String, CodingKey { case type, occurredAt, app, environment, customer }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        type = try container.decode(String.self, forKey: .type)
        occurredAt = try container.decode(Int64.self, forKey: .occurredAt)
        app = try? container.decodeIfPresent(String.self, forKey: .app)
        environment = try? container.decodeIfPresent(String.self, forKey: .environment)
        subscriptions = ((try? container.decodeIfPresent(Customer.self, forKey: .customer)) ?? nil)?.subscriptions ?? [:]
    }

    /// An entry of the log; one that does not decode is a store failure of that entry, as for
    /// every reader of the log (`EventLog`).
    static func of(_ bytes: [UInt8], sequence: Int64) throws(StoreError) -> MetricsEventView {
        do {
            return try JSONDecoder().decode(MetricsEventView.self, from: Data(bytes))
        } catch {
            throw StoreError(.failed, "event \(sequence) of the log does not decode")
        }
    }
}
