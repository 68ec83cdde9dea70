import FunctionRuntime
import StorekeeperCore

/// The dashboard's customer view: the customer get-customer would answer for an id of any kind.
extension DashboardFunction {
    /// The kinds of id tried, in this order; the first that names a customer answers.
    static func customerKeys(_ id: String) -> [CustomerLookup.Key] {
        [.user(id), .appAccountToken(id), .originalTransactionId(id), .transactionId(id), .appTransactionId(id)]
    }

    func customerView(_ id: String, environment: String, store: any KeyValueStore, now: Int64) throws -> Reply<DashboardAnswer> {
        guard !id.isEmpty, id.utf8.count <= 200 else {
            throw FunctionError.badInput(message: "customer must be an id of 1 to 200 bytes")
        }
        // Without a catalog file, the apps the store has counted are the ones an original
        // transaction id is looked for in.
        let counted = try store.setMembers(StoreKeys.metricsShards).compactMap(MetricsShardID.init(member:)).map(\.app)
        let apps = Array(Set(answering.catalog.apps.map(\.bundleId) + counted)).sorted()
        var answer: CustomerAnswer?
        for key in Self.customerKeys(id) where answer == nil {
            answer = try answering.answer(key, apps: apps, store: store, now: context.clock.now())
        }
        context.log.info("dashboard_customer_view", ["found": answer != nil])
        return page(DashboardCustomer.html(id: id, answer: answer, environment: environment, now: now), status: answer == nil ? 404 : 200)
    }
}
