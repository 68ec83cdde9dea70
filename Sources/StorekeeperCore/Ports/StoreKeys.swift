import OpenSSLCrypto

/// The key layout of the store, in one place, so nobody invents a key somewhere else.
///
/// Rules:
/// - Every key starts with its area (`appstore:`, `siwa:`, `user:`, ...), then what it is.
/// - Keys that one atomic step touches together share a Redis Cluster hash tag (the part in
///   braces), so the same layout runs on a cluster; keys that are never touched together do
///   not, so they spread over the cluster.
/// - Whatever is only a cache has an expiry; whatever is a record of what Apple sent does not.
///
/// | key | value | expiry | written by |
/// | --- | --- | --- | --- |
/// | `storekeeper:layout` | the layout version the store is written in, decimal (`StoreLayout`) | — | the first function to open the store, and layout migrations |
/// | log `{events}` | the event log (`Event`): every change of a customer once, in sequence order, with the customer's version | STOREKEEPER_EVENT_RETENTION_DAYS (90) | the relay (`EventRelay`) |
/// | `events:outboxes` | set of `<ms>|<kind>|<record key>|<event id>`: an event in a record's outbox not yet known to be in the log | — | record writes, the relay |
/// | `events:standalone:<event id>` | the outbox of a notification that is an event of its own (TEST, CONSUMPTION_REQUEST, RESCIND_CONSENT, EXTERNAL_PURCHASE_TOKEN, REFUND_DECLINED) | — (deleted once in the log) | process-notifications |
/// | `webhooks:<endpoint>:cursor` | how far deliver-events has come in the event log for the endpoint (`WebhookCursor`), by compare-and-set after each delivery | — | deliver-events |
/// | `webhooks:<endpoint>:lease` | the run delivering to the endpoint now: a random token, renewed while it works | 2 × STOREKEEPER_WEBHOOK_TIMEOUT_SECONDS + 30 s | deliver-events, replay-events |
/// | `webhooks:<endpoint>:waiting` | set of the customers (`c:<customerId>`, `none`) with a backlog: bounded, the cursor stops beyond it | — | deliver-events |
/// | `webhooks:<endpoint>:backlog:<member of :waiting>` | one customer's events waiting in order, the first being retried: attempts, next due time, last answer (`WebhookBacklog`) | — | deliver-events |
/// | `webhooks:<endpoint>:dead` | set of the ids of the endpoint's dead-lettered events | — | deliver-events, replay-events |
/// | `webhooks:<endpoint>:dead:<eventId>` | a dead-lettered event and its last answer (`WebhookDeadLetter`) | — | deliver-events; deleted by replay-events once delivered |
/// | `webhooks:<endpoint>:deliveries` | delivery attempts to the endpoint by result since counting began: delivered, failed, dead (`WebhookDeliveryCounts`); a run killed mid-pass loses that pass's counts | — | deliver-events and replay-events, one compare-and-set per endpoint after each pass |
/// | `appstore:chain:<sha256 of the roots' identity, x5c[0].x5c[1]>` | a proven `x5c` chain: leaf key, validity window (`CachedChain`) | 24 h | signed-data verification |
/// | `appstore:ocsp:<sha256 of certificate DER>` | the last OCSP answer for a certificate (`CachedRevocationStatus`) | until nextUpdate, at most 24 h (+ a soft-fail grace) | online checks |
/// | `{notifications}:n:<notificationUUID>` | a received notification, verified (`StoredNotification`) | 180 days (Apple's history window) | receive-notification, recover-notifications |
/// | queue `{notifications}` | one job per notification to apply; REFUND and REVOKE at priority 0 | — | receive-notification → process-notifications |
/// | `appstore:app:<bundleId>:entitlement:<originalTransactionId>` | the merged facts of one subscription of one app (`EntitlementRecord`) and Apple's last reconciliation answer, written by compare-and-set | — | process-notifications, ingest-transaction, reconcile, migrate-receipt |
/// | `appstore:subscriptions` | set of every subscription with a record (`SubscriptionRef`, `<bundleId>/<originalTransactionId>`): what `reconcile` walks | — | entitlement writes |
/// | `appstore:app:<bundleId>:owner:<originalTransactionId>` | the user id that owns a subscription | — | linking |
/// | `user:<userId>:subscriptions` | set of the subscriptions (`SubscriptionRef`) of a user, every app | — | linking |
/// | `user:<userId>:customer` | what is kept about the user beyond purchases: grants and the audit timeline (`CustomerRecord`); after delete-customer a tombstone without grants | — | support operations |
/// | `appstore:token:<appAccountToken>` | the user id an appAccountToken belongs to | — | ingest-transaction, Sign in with Apple |
/// | `appstore:token:<appAccountToken>:subscriptions` | set of the subscriptions (`SubscriptionRef`) that carried the token, user known or not | — | linking |
/// | `appstore:token:<appAccountToken>:linked` | "1": every subscription that carried the token before its user was known is linked to the user, so claiming it again relinks nothing | — | linking |
/// | `appstore:ratelimit:<name>` | a token bucket shared by every process calling Apple, and Apple's last Retry-After (`SharedRateLimiter`): `api` for reconcile and recover-notifications, `migrate` for migrate-receipt (the public route's own, so the public cannot starve reconcile) | 1 h | reconcile, recover-notifications, migrate-receipt |
/// | `appstore:app:<bundleId>:migrated:<originalTransactionId>` | a migration of the id finished: what failed about it, if anything (`ReceiptMigrationMemo`); anonymous reruns answer from the store meanwhile | 24 h | migrate-receipt |
/// | `appstore:app:<bundleId>:reconcile:cursor:<selection>` | where an unfinished `reconcile` run of one app stopped (`ReconciliationCursor`) | 7 days | reconcile |
/// | `appstore:app:<bundleId>:migration:<originalTransactionId>` | the dual track of a receipt migration: legacy (verifyReceipt) and new (App Store Server API) status, whether they agree, when (`ReceiptMigrationAudit`) | — (the migration's audit) | migrate-receipt with legacyCheck |
/// | `appstore:recover:cursor:<sha256 of the request as asked>` | the pagination token an unfinished `recover-notifications` run reached, and the request it belongs to | 24 h | recover-notifications |
/// | `siwa:jwks` | Apple's key set from `/auth/keys` and when it was fetched (`AppleKeyCache`) | 7 days (refetched after 1 h; the fallback while Apple is unreachable) | identity-token verification |
/// | `siwa:jwks:refresh` | "1": the right to refetch the key set on an unknown `kid`, shared by every process | 60 s | identity-token verification |
/// | `siwa:state:<state>` | a pending web sign-in: its nonce (`AuthorizationStateRepository.Pending`); deleted when consumed | 10 min | siwa-start → siwa-callback |
/// | `siwa:sub:<sub>` | the user id of Apple's user id `sub` | — | siwa-callback, siwa-native; deleted with the account |
/// | `siwa:session:<sha256 of session id>` | an open session (`SessionRepository.Session`); only the digest of the id is kept | 30 days | siwa-callback, siwa-native |
/// | `siwa:notification:<jti>` | the event type of an account notification already acted on | 30 days | siwa-notification |
/// | `user:<userId>:account` | the user's account: `sub`, email, name, appAccountToken (`AppleAccount`): all the personal data | — | Sign in with Apple; deleted with the account |
/// | `user:<userId>:sessions` | set of the session digests of a user, to end them all | — | Sign in with Apple |
/// | `user:<userId>:apple-token` | the refresh token, AES-256-GCM sealed with STOREKEEPER_DATA_KEY, and its client id | — | siwa-callback, siwa-native; deleted on revocation, consent-revoked, deletion |
/// | `user:<userId>:apple-token-check` | "1": the refresh token was checked against Apple today | 24 h | refresh-token checks |
/// | `appstore:apptransaction:<appTransactionId>` | set of the subscriptions (`SubscriptionRef`) that carried Apple's app-transaction id: the customer RESCIND_CONSENT and get-customer name by it | — | entitlement writes |
/// | `appstore:transaction:<transactionId>` | set of the subscriptions (`SubscriptionRef`, one but in test environments) a transaction belongs to, so get-customer finds a customer by any transaction id (renewals, crossgrades) | — | entitlement writes |
/// | `appstore:app:<bundleId>:purchase:<transactionId>` | a consumable purchase: the transaction's facts as Apple signed them last (`TransactionFacts`); it grants nothing, get-customer lists it | — | process-notifications, ingest-transaction |
/// | `user:<userId>:purchases` | set of the consumable purchases (`SubscriptionRef` of app and transaction id) of a user | — | linking |
/// | `appstore:purchases` | set of every consumable purchase (`SubscriptionRef` of app and transaction id) written since it exists: what export-data walks | — | consumable writes |
/// | `export:cursor:<name>` | where an export-data consumer stands: the event-log sequence exported up to, a full walk under way (`ExportCursor`); `transactions` and `events` by default | — | export-data |
/// | `user:<userId>:deleted` | when the account was deleted and its appAccountToken: no personal data | — | siwa-revoke, siwa-notification |
/// | `appstore:import:<sha256 of the input's lines>` | how far an `import-customers` run of that input came: the next line, counts (`CustomerImportCursor`); kept when finished, so a rerun asks Apple nothing | 7 days | import-customers |
/// | `appstore:import:<sha256 of the input's lines>:line:<n>` | what the run found for line n (`CustomerImportLineResult`), for the report of a resumed run | 7 days | import-customers |
/// | `appstore:app:<bundleId>:refund:<environment>:<transactionId>` | a customer's refund request (CONSUMPTION_REQUEST): reason, deadline, state, the answer sent, Apple's outcome (`RefundRequest`), by compare-and-set; Apple's decision alone (`requests` 0) when no request was seen before it | — | process-notifications |
/// | `appstore:app:<bundleId>:refunds:<environment>` | set of `<signedDate ms, 13 digits>|<transactionId>`: one app's refund requests in one environment, oldest first, what refund-requests reads | — | process-notifications |
/// | `appstore:refunds:due` | set of `<next attempt ms, 13 digits>|<refund request key>`: the answers the worker owes Apple, soonest first | — (removed once answered or final) | process-notifications |
/// | `user:<userId>:consumption-consent` | the user's latest decision to share consumption data with Apple (`ConsumptionConsent`) | — | set-consumption |
/// | `appstore:token:<appAccountToken>:consumption-consent` | the same for an appAccountToken whose user Storekeeper does not know | — | set-consumption |
/// | `appstore:transaction:<transactionId>:consumption` | the backend's delivery status and consumption of one transaction (`TransactionConsumption`) | — | set-consumption |
/// | `metrics:cursor` | how far the metrics aggregator has counted the event log everywhere (`MetricsCursor`): moves only after every shard of a batch is written | — | the aggregator (process-notifications, metrics) |
/// | `metrics:shards` | set of `<bundleId>/<environment>`: every app and environment with metrics | — | the aggregator |
/// | `metrics:app:<bundleId>:<environment>` | one app's metrics in one environment (`MetricsShard`): the sequence counted, current subscriptions, totals, daily buckets (92 days), the subscription states its last write changed | — | the aggregator, by compare-and-set per batch |
/// | `metrics:app:<bundleId>:<environment>:subscription:<originalTransactionId>` | a subscription's last counted state and the sequence that made it (`MetricsSubscriptionRecord`) | — | the aggregator (copied from its shard's pending states) |
/// | `metrics:app:<bundleId>:<environment>:notifications` | notifications received by type since counting began, and the last one (`NotificationCounts`) | — | process-notifications, once a notification is acknowledged |
/// | `metrics:app:<bundleId>:<environment>:notifications:<yyyy-mm-dd>` | the day's notifications by type (`NotificationCounts`) | 92 days | process-notifications |
/// | `metrics:notifications:dead-letter` | the last notification dead-lettered: its id, error code and when (`DeadLetterNote`) | — | process-notifications |
/// | `metrics:reconcile:<bundleId>` | reconciliation corrections by kind since counting began (`CorrectionCounts`) | — | reconcile, after each run |
/// | `metrics:reconcile:<bundleId>:<yyyy-mm-dd>` | the day's corrections by kind (`CorrectionCounts`) | 92 days | reconcile |
/// | `recovery:runs` | set of `<bundleId>/<environment>`: every app and environment recover-notifications ran for | — | recover-notifications |
/// | `copy-store:progress` | where an unfinished copy-store pass stands in the TARGET store: the source's identity (a digest of its location), the walk's cursor, the counts so far (`StoreCopier`); never copied or compared, removed once the pass is over | 7 days | copy-store |
/// | `recovery:runs:<bundleId>:<environment>` | the last 30 runs of recover-notifications, oldest first: window, end, complete or not, the report with Apple's first send attempt results (`RecoveryRunHistory`) | — | recover-notifications, once at the end of each run |
///
/// Account deletion removes `user:<userId>:account`, `:sessions`, `:apple-token`, the
/// sessions and `siwa:sub:<sub>`; it keeps `user:<userId>:transactions`, the entitlements and
/// `appstore:token:<appAccountToken>`, which the books need.
///
/// The notification record and its queue share the hash tag `{notifications}` because they
/// are written in one atomic step (`setIfAbsentAndEnqueue`).
public enum StoreKeys {
    /// The store's layout version (`StoreLayout`).
    public static let layoutVersion = "storekeeper:layout"

    /// copy-store's progress, in the store copied into (`StoreCopier`).
    public static let copyProgress = "copy-store:progress"

    // MARK: Events (issue 15)

    /// The event log (an append-only log of the store, `KeyValueStore.appendToLog`): one hash
    /// tag for the log, its id index and its customer versions, written in one atomic step.
    /// Only the log shares it: the records whose outboxes feed it keep their own keys.
    public static let eventLog = "{events}"

    /// Set of the outboxes that may hold an event not yet in the log: `<ms>|<kind>|<record key>|<event id>`
    /// (`EventRelay`), added before the record's write, removed once the event is in the log.
    public static let eventOutboxes = "events:outboxes"

    /// The outbox of a notification that is an event of its own although it changes no record
    /// (TEST, CONSUMPTION_REQUEST, ...), until the relay has put it in the log.
    public static func standaloneEvent(_ eventId: String) -> String {
        "events:standalone:" + eventId
    }

    // MARK: Webhooks (deliver-events, replay-events)

    public static func webhookCursor(endpoint: String) -> String { "webhooks:" + endpoint + ":cursor" }
    public static func webhookLease(endpoint: String) -> String { "webhooks:" + endpoint + ":lease" }
    public static func webhookWaiting(endpoint: String) -> String { "webhooks:" + endpoint + ":waiting" }

    /// `member`: the customer as the waiting set names it (`WebhookQueueMember`).
    public static func webhookBacklog(endpoint: String, member: String) -> String {
        "webhooks:" + endpoint + ":backlog:" + member
    }

    public static func webhookDeadLetters(endpoint: String) -> String { "webhooks:" + endpoint + ":dead" }

    public static func webhookDeadLetter(endpoint: String, eventId: String) -> String {
        "webhooks:" + endpoint + ":dead:" + eventId
    }

    public static func webhookDeliveries(endpoint: String) -> String { "webhooks:" + endpoint + ":deliveries" }

    /// The queue of notifications waiting to be applied.
    public static let notificationQueue = "{notifications}"

    public static func notification(_ notificationUUID: String) -> String {
        "{notifications}:n:" + notificationUUID
    }

    public static func entitlement(_ subscription: SubscriptionRef) -> String {
        "appstore:app:" + subscription.bundleId + ":entitlement:" + subscription.originalTransactionId
    }

    /// The set of every subscription with a record, for reconciliation.
    public static let subscriptionIndex = "appstore:subscriptions"

    /// The set of every consumable purchase (`SubscriptionRef` of app and transaction id), for export-data.
    public static let purchaseIndex = "appstore:purchases"

    public static func owner(_ subscription: SubscriptionRef) -> String {
        "appstore:app:" + subscription.bundleId + ":owner:" + subscription.originalTransactionId
    }

    public static func userSubscriptions(_ userId: String) -> String {
        "user:" + userId + ":subscriptions"
    }

    public static func customer(_ userId: String) -> String {
        "user:" + userId + ":customer"
    }

    public static func appAccountToken(_ token: String) -> String {
        "appstore:token:" + token.lowercased()
    }

    public static func appAccountTokenSubscriptions(_ token: String) -> String {
        "appstore:token:" + token.lowercased() + ":subscriptions"
    }

    public static func appAccountTokenLinked(_ token: String) -> String {
        "appstore:token:" + token.lowercased() + ":linked"
    }

    /// The token bucket every process calling the App Store Server API shares.
    public static let appStoreAPIRateLimit = "appstore:ratelimit:api"

    /// migrate-receipt's bucket: the public route's calls to Apple, apart from reconcile's.
    public static let receiptMigrationRateLimit = "appstore:ratelimit:migrate"

    public static func receiptMigrated(_ subscription: SubscriptionRef) -> String {
        "appstore:app:" + subscription.bundleId + ":migrated:" + subscription.originalTransactionId
    }

    /// One app's walk: each app is reconciled by a run of its own.
    public static func reconciliationCursor(bundleId: String, selection: String) -> String {
        "appstore:app:" + bundleId + ":reconcile:cursor:" + selection
    }

    public static func receiptMigration(_ subscription: SubscriptionRef) -> String {
        "appstore:app:" + subscription.bundleId + ":migration:" + subscription.originalTransactionId
    }

    /// Layout version 1's keys, before records carried the app: read only by the migration
    /// to version 2 (`StoreMigrations`), which moves them.
    enum LayoutV1 {
        static let entitlementIndex = "appstore:entitlements"
        static func entitlement(_ originalTransactionId: String) -> String { "appstore:entitlement:" + originalTransactionId }
        static func owner(_ originalTransactionId: String) -> String { "appstore:owner:" + originalTransactionId }
        static func userTransactions(_ userId: String) -> String { "user:" + userId + ":transactions" }
        static func appAccountTokenTransactions(_ token: String) -> String {
            "appstore:token:" + token.lowercased() + ":transactions"
        }
        static func receiptMigration(_ originalTransactionId: String) -> String { "appstore:migration:" + originalTransactionId }
    }

    public static func recoveryCursor(requestDigest: String) -> String {
        "appstore:recover:cursor:" + requestDigest
    }

    /// A verified `x5c` chain, keyed by the exact certificate text (so a cache hit costs no
    /// certificate parsing at all) and by the roots it was proven against (so it is proven
    /// again under other roots).
    public static func verifiedChain(leaf: String, intermediate: String, roots: [UInt8]) -> String {
        "appstore:chain:" + Hex.encode(Digest.sha256(roots + Array(leaf.utf8) + [UInt8(ascii: ".")] + Array(intermediate.utf8)))
    }

    /// The revocation status of one certificate, keyed by its DER fingerprint.
    public static func revocationStatus(certificateFingerprint: [UInt8]) -> String {
        "appstore:ocsp:" + Hex.encode(certificateFingerprint)
    }

    // MARK: Sign in with Apple

    public static let appleKeySet = "siwa:jwks"
    public static let appleKeySetRefresh = "siwa:jwks:refresh"

    public static func authorizationState(_ state: String) -> String {
        "siwa:state:" + state
    }

    public static func appleSubject(_ sub: String) -> String {
        "siwa:sub:" + sub
    }

    public static func session(digest: String) -> String {
        "siwa:session:" + digest
    }

    /// Apple's `jti` as it came when short and plain, else its SHA-256: a signed but odd
    /// value must not make an odd key.
    public static func accountNotification(_ jti: String) -> String {
        let plain = jti.utf8.count <= 128 && jti.utf8.allSatisfy { byte in
            (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte) || byte == 45 || byte == 46 || byte == 95
        }
        return "siwa:notification:" + (plain ? jti : Hex.encode(Digest.sha256(Array(jti.utf8))))
    }

    public static func account(_ userId: String) -> String {
        "user:" + userId + ":account"
    }

    public static func userSessions(_ userId: String) -> String {
        "user:" + userId + ":sessions"
    }

    public static func appleRefreshToken(_ userId: String) -> String {
        "user:" + userId + ":apple-token"
    }

    public static func appleRefreshCheck(_ userId: String) -> String {
        "user:" + userId + ":apple-token-check"
    }

    public static func accountDeletion(_ userId: String) -> String {
        "user:" + userId + ":deleted"
    }

    // MARK: Customers (issue 14)

    public static func appTransaction(_ appTransactionId: String) -> String {
        "appstore:apptransaction:" + appTransactionId
    }

    public static func transaction(_ transactionId: String) -> String {
        "appstore:transaction:" + transactionId
    }

    /// A consumable purchase, named by its app and its own transaction id.
    public static func purchase(_ purchase: SubscriptionRef) -> String {
        "appstore:app:" + purchase.bundleId + ":purchase:" + purchase.originalTransactionId
    }

    public static func userPurchases(_ userId: String) -> String {
        "user:" + userId + ":purchases"
    }

    // MARK: Exports (issue 15)

    /// Where the export-data consumer `name` stands (`ExportCursor`). Its own key: no atomic
    /// step shares it.
    public static func exportCursor(_ name: String) -> String {
        "export:cursor:" + name
    }

    /// Where an `import-customers` run of one input stands (`run`: the digest of its lines).
    public static func customerImport(run: String) -> String {
        "appstore:import:" + run
    }

    public static func customerImportLine(run: String, line: Int) -> String {
        "appstore:import:" + run + ":line:" + String(line)
    }

    // MARK: Refund requests (issue 16)

    public static func refundRequest(bundleId: String, environment: String, transactionId: String) -> String {
        "appstore:app:" + bundleId + ":refund:" + environment + ":" + transactionId
    }

    public static func refundRequests(bundleId: String, environment: String) -> String {
        "appstore:app:" + bundleId + ":refunds:" + environment
    }

    /// The answers due to Apple, every app: `<ms>|<refund request key>`.
    public static let refundAnswersDue = "appstore:refunds:due"

    public static func consumptionConsent(userId: String) -> String {
        "user:" + userId + ":consumption-consent"
    }

    public static func appAccountTokenConsumptionConsent(_ token: String) -> String {
        "appstore:token:" + token.lowercased() + ":consumption-consent"
    }

    public static func transactionConsumption(_ transactionId: String) -> String {
        "appstore:transaction:" + transactionId + ":consumption"
    }

    // MARK: Metrics (issue 17)

    /// How far the metrics aggregator has counted the event log (`MetricsCursor`).
    public static let metricsCursor = "metrics:cursor"

    /// Set of every app and environment with metrics (`MetricsShardID.member`).
    public static let metricsShards = "metrics:shards"

    /// One app's metrics in one environment (`MetricsShard`): its own key, so shards spread
    /// over a cluster and never contend with each other or with the records they count.
    public static func metricsShard(_ shard: MetricsShardID) -> String {
        "metrics:app:" + shard.app + ":" + shard.environment
    }

    public static func metricsSubscription(_ shard: MetricsShardID, originalTransactionId: String) -> String {
        metricsShard(shard) + ":subscription:" + originalTransactionId
    }

    public static func metricsNotifications(_ shard: MetricsShardID) -> String {
        metricsShard(shard) + ":notifications"
    }

    public static func metricsNotificationDay(_ shard: MetricsShardID, day: String) -> String {
        metricsShard(shard) + ":notifications:" + day
    }

    public static let metricsDeadLetter = "metrics:notifications:dead-letter"

    public static func metricsCorrections(bundleId: String) -> String {
        "metrics:reconcile:" + bundleId
    }

    public static func metricsCorrectionDay(bundleId: String, day: String) -> String {
        "metrics:reconcile:" + bundleId + ":" + day
    }

    /// Set of every app and environment with recovery runs (`MetricsShardID.member`).
    public static let recoveryHistories = "recovery:runs"

    /// The last runs of recover-notifications for one app in one environment (`RecoveryRunHistory`).
    public static func recoveryRuns(_ shard: MetricsShardID) -> String {
        "recovery:runs:" + shard.app + ":" + shard.environment
    }
}
