import Foundation
import StorekeeperCore

/// A deterministic random source (SplitMix64), so a failing run can be replayed.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// One auto-renewable subscription played the way the App Store plays it, emitting the
/// notifications Apple would send, each with the signed transaction and renewal info as they
/// stand at that moment. (The same model as StorekeeperCoreTests' LifecycleSimulator, which
/// this target cannot import, emitting signable notifications instead of engine events.)
struct SubscriptionStory {
    static let day: Int64 = 86_400_000
    static let period: Int64 = 30 * day
    static let grace: Int64 = 6 * day

    /// Names the notifications' UUIDs (see NotificationSpec.uuid).
    let group: Int
    let originalTransactionId: String
    var appAccountToken: String
    var now: Int64
    var productId = "com.example.pro.monthly"
    var periods: [JWSTransactionDecodedPayload] = []
    var autoRenew = true
    var inBillingRetry = false
    var graceEnd: Int64?
    var notifications: [NotificationSpec] = []

    init(group: Int, originalTransactionId: String, start: Int64) {
        self.group = group
        self.originalTransactionId = originalTransactionId
        appAccountToken = String(format: "%08x-1111-4222-8333-%012x", group, Int(originalTransactionId) ?? 0)
        now = start
    }

    var latest: JWSTransactionDecodedPayload { periods[periods.count - 1] }

    private mutating func tick(_ milliseconds: Int64 = 60_000) { now += milliseconds }

    private func transaction(id: String, purchase: Int64, expires: Int64, product: String) -> JWSTransactionDecodedPayload {
        JWSTransactionDecodedPayload(
            transactionId: id, originalTransactionId: originalTransactionId, bundleId: E2E.bundleId,
            productId: product, subscriptionGroupIdentifier: "21000001", purchaseDate: purchase,
            originalPurchaseDate: periods.first?.purchaseDate ?? purchase, expiresDate: expires, quantity: 1,
            rawType: "Auto-Renewable Subscription", appAccountToken: appAccountToken,
            rawInAppOwnershipType: "PURCHASED", signedDate: now, rawEnvironment: "Sandbox")
    }

    private func renewal() -> JWSRenewalInfoDecodedPayload {
        JWSRenewalInfoDecodedPayload(
            rawExpirationIntent: autoRenew ? nil : 1, originalTransactionId: originalTransactionId,
            autoRenewProductId: productId, productId: productId, rawAutoRenewStatus: autoRenew ? 1 : 0,
            isInBillingRetryPeriod: inBillingRetry, gracePeriodExpiresDate: graceEnd, signedDate: now,
            rawEnvironment: "Sandbox")
    }

    private mutating func emit(_ type: String, _ subtype: String?, about transaction: JWSTransactionDecodedPayload? = nil) {
        var signed = transaction ?? latest
        signed.signedDate = now
        notifications.append(NotificationSpec(
            uuid: NotificationSpec.uuid(group, notifications.count + 1), type: type, subtype: subtype,
            signedDate: now, transaction: signed, renewal: renewal()))
    }

    mutating func subscribe() {
        tick()
        periods.append(transaction(id: "\(originalTransactionId)1", purchase: now, expires: now + Self.period, product: productId))
        emit("SUBSCRIBED", "INITIAL_BUY")
    }

    mutating func renew(subtype: String? = nil) {
        let start = max(latest.expiresDate ?? now, now)
        now = start + 1000
        inBillingRetry = false
        graceEnd = nil
        periods.append(transaction(id: "\(originalTransactionId)\(periods.count + 1)", purchase: start,
                                   expires: start + Self.period, product: productId))
        emit("DID_RENEW", subtype)
    }

    /// A new purchase after expiry, in the same original transaction.
    mutating func resubscribe(after pause: Int64) {
        now += pause
        autoRenew = true
        periods.append(transaction(id: "\(originalTransactionId)\(periods.count + 1)", purchase: now,
                                   expires: now + Self.period, product: productId))
        emit("SUBSCRIBED", "RESUBSCRIBE")
    }

    mutating func setAutoRenew(_ enabled: Bool, after pause: Int64 = 60_000) {
        now += pause
        autoRenew = enabled
        emit("DID_CHANGE_RENEWAL_STATUS", enabled ? "AUTO_RENEW_ENABLED" : "AUTO_RENEW_DISABLED")
    }

    mutating func failBilling(withGrace: Bool) {
        now = max(now, latest.expiresDate ?? now) + 1000
        inBillingRetry = true
        graceEnd = withGrace ? (latest.expiresDate ?? now) + Self.grace : nil
        emit("DID_FAIL_TO_RENEW", withGrace ? "GRACE_PERIOD" : nil)
    }

    mutating func expireGrace() {
        guard let end = graceEnd else { return }
        now = max(now, end) + 1000
        emit("GRACE_PERIOD_EXPIRED", nil)
    }

    mutating func expire() {
        now = max(now, latest.expiresDate ?? now) + 1000
        let subtype = inBillingRetry ? "BILLING_RETRY" : "VOLUNTARY"
        inBillingRetry = false
        graceEnd = nil
        emit("EXPIRED", subtype)
    }

    mutating func refund(periodIndex: Int? = nil, after pause: Int64 = 60_000) {
        now += pause
        let index = periodIndex ?? periods.count - 1
        periods[index].revocationDate = now
        periods[index].rawRevocationReason = 1
        emit("REFUND", nil, about: periods[index])
    }

    mutating func reverseRefund(periodIndex: Int) {
        tick()
        periods[periodIndex].revocationDate = nil
        periods[periodIndex].rawRevocationReason = nil
        emit("REFUND_REVERSED", nil, about: periods[periodIndex])
    }

    mutating func upgrade(to product: String) {
        tick()
        periods[periods.count - 1].isUpgraded = true
        let old = latest
        productId = product
        periods.append(transaction(id: "\(originalTransactionId)\(periods.count + 1)", purchase: now,
                                   expires: now + Self.period, product: product))
        emit("DID_CHANGE_RENEWAL_PREF", "UPGRADE")
        // Apple also re-signs the upgraded (old) transaction; it must not move the entitlement back.
        emit("DID_CHANGE_RENEWAL_PREF", "UPGRADE", about: old)
    }

    /// A random but valid life of exactly `count` notifications (a prefix of a longer one).
    static func random(count: Int, group: Int, originalTransactionId: String, start: Int64,
                       using generator: inout SeededGenerator) -> SubscriptionStory {
        var story = SubscriptionStory(group: group, originalTransactionId: originalTransactionId, start: start)
        story.subscribe()
        var expired = false
        while story.notifications.count < count {
            if expired {
                story.resubscribe(after: Int64.random(in: 1...20, using: &generator) * day)
                expired = false
                continue
            }
            switch Int.random(in: 0..<10, using: &generator) {
            case 0, 1: story.renew()
            case 2: story.setAutoRenew(!story.autoRenew)
            case 3:
                story.failBilling(withGrace: Bool.random(using: &generator))
                if Bool.random(using: &generator) { story.expireGrace() }
                if Bool.random(using: &generator) { story.renew(subtype: "BILLING_RECOVERY") } else { story.expire(); expired = true }
            case 4:
                story.refund(periodIndex: Int.random(in: 0..<story.periods.count, using: &generator))
            case 5:
                let refunded = story.periods.indices.filter { story.periods[$0].revocationDate != nil }
                if let index = refunded.randomElement(using: &generator) { story.reverseRefund(periodIndex: index) }
            case 6:
                story.upgrade(to: story.productId == "com.example.pro.monthly" ? "com.example.max.monthly" : "com.example.pro.monthly")
            case 7:
                story.setAutoRenew(false)
                story.expire()
                expired = true
            default: story.renew()
            }
        }
        story.notifications.removeLast(story.notifications.count - count)
        return story
    }

    /// The record in-order delivery gives: every notification applied once, in the order
    /// Apple sent them, by the same engine the worker runs.
    static func inOrderRecord(_ notifications: [NotificationSpec]) throws -> EntitlementRecord? {
        var record: EntitlementRecord?
        for notification in notifications {
            record = try EntitlementEngine.apply(notification.event, to: record).record
        }
        return record
    }
}
