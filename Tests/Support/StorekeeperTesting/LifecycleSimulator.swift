import Foundation
import StorekeeperCore

/// Plays one purchase the way the App Store does (an auto-renewable subscription unless
/// `productType` says otherwise) and emits the notifications Apple would send, each carrying
/// the signed transaction and renewal info as they stand at that moment. Core tests feed
/// `events` to the engine; function tests sign `notifications` with `simulate-store`.
public struct LifecycleSimulator {
    public static let day: Int64 = 86_400_000
    public static let period: Int64 = 30 * day
    public static let grace: Int64 = 6 * day
    public static let autoRenewable = "Auto-Renewable Subscription"

    /// Names the notifications' UUIDs (`NotificationSpec.uuid`), so a failure says which story.
    public let group: Int
    public let originalTransactionId: String
    public let productType: String
    public let bundleId: String
    /// The app's account token on every transaction, named after the story by default.
    public var appAccountToken: String
    public var now: Int64
    public var productId = "com.example.pro.monthly"
    public var periods: [JWSTransactionDecodedPayload] = []
    public var autoRenew = true
    public var inBillingRetry = false
    public var graceEnd: Int64?
    public var ownership = "PURCHASED"
    /// What Apple sent so far, in the order it sent it.
    public var notifications: [NotificationSpec] = []
    /// The same, as the engine is given them once verified.
    public var events: [EntitlementEvent] { notifications.map(\.event) }

    /// `group` defaults to the original transaction id when it is a number, so two
    /// simulators with different ids never share a notification UUID.
    public init(originalTransactionId: String = "1000", productType: String = autoRenewable,
                group: Int? = nil, start: Int64 = 1_780_272_000_000, bundleId: String = "com.example.storekeeper") {
        let group = group ?? Int(originalTransactionId) ?? 0
        self.originalTransactionId = originalTransactionId
        self.productType = productType
        self.group = group
        self.now = start
        self.bundleId = bundleId
        appAccountToken = String(format: "%08x-1111-4222-8333-%012x", group, Int(originalTransactionId) ?? 0)
    }

    public var latest: JWSTransactionDecodedPayload { periods[periods.count - 1] }
    private var isAutoRenewable: Bool { productType == Self.autoRenewable }

    private mutating func tick(_ milliseconds: Int64 = 60_000) { now += milliseconds }

    /// Numbered after the original, as Apple's transaction ids are digits.
    private func nextTransaction(purchase: Int64, expires: Int64?) -> JWSTransactionDecodedPayload {
        JWSTransactionDecodedPayload(
            transactionId: "\(originalTransactionId)\(periods.count + 1)", originalTransactionId: originalTransactionId,
            bundleId: bundleId, productId: productId, subscriptionGroupIdentifier: "21000001", purchaseDate: purchase,
            originalPurchaseDate: periods.first?.purchaseDate ?? purchase, expiresDate: expires, quantity: 1,
            rawType: productType, appAccountToken: appAccountToken, rawInAppOwnershipType: ownership,
            signedDate: now, rawEnvironment: "Sandbox")
    }

    private func renewal() -> JWSRenewalInfoDecodedPayload? {
        guard isAutoRenewable else { return nil }
        return JWSRenewalInfoDecodedPayload(
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
            signedDate: now, bundleId: bundleId, transaction: signed, renewal: renewal()))
    }

    public mutating func subscribe() {
        tick()
        periods.append(nextTransaction(purchase: now, expires: isAutoRenewable ? now + Self.period : nil))
        emit(isAutoRenewable ? "SUBSCRIBED" : "ONE_TIME_CHARGE", isAutoRenewable ? "INITIAL_BUY" : nil)
    }

    public mutating func renew(subtype: String? = nil) {
        let start = max(latest.expiresDate ?? now, now)
        now = start + 1000
        inBillingRetry = false
        graceEnd = nil
        periods.append(nextTransaction(purchase: start, expires: start + Self.period))
        emit("DID_RENEW", subtype)
    }

    /// A new purchase after expiry, in the same original transaction.
    public mutating func resubscribe(after pause: Int64) {
        now += pause
        autoRenew = true
        periods.append(nextTransaction(purchase: now, expires: now + Self.period))
        emit("SUBSCRIBED", "RESUBSCRIBE")
    }

    public mutating func setAutoRenew(_ enabled: Bool, after pause: Int64 = 60_000) {
        tick(pause)
        autoRenew = enabled
        emit("DID_CHANGE_RENEWAL_STATUS", enabled ? "AUTO_RENEW_ENABLED" : "AUTO_RENEW_DISABLED")
    }

    public mutating func failBilling(withGrace: Bool) {
        now = max(now, latest.expiresDate ?? now) + 1000
        inBillingRetry = true
        graceEnd = withGrace ? (latest.expiresDate ?? now) + Self.grace : nil
        emit("DID_FAIL_TO_RENEW", withGrace ? "GRACE_PERIOD" : nil)
    }

    public mutating func expireGrace() {
        guard let end = graceEnd else { return }
        now = max(now, end) + 1000
        emit("GRACE_PERIOD_EXPIRED", nil)
    }

    public mutating func expire() {
        now = max(now, latest.expiresDate ?? now) + 1000
        let subtype = inBillingRetry ? "BILLING_RETRY" : "VOLUNTARY"
        inBillingRetry = false
        graceEnd = nil
        emit("EXPIRED", subtype)
    }

    public mutating func refund(periodIndex: Int? = nil, after pause: Int64 = 60_000) {
        tick(pause)
        let index = periodIndex ?? periods.count - 1
        periods[index].revocationDate = now
        periods[index].rawRevocationReason = 1
        emit(ownership == "FAMILY_SHARED" ? "REVOKE" : "REFUND", nil, about: periods[index])
    }

    public mutating func reverseRefund(periodIndex: Int? = nil) {
        tick()
        let index = periodIndex ?? periods.count - 1
        periods[index].revocationDate = nil
        periods[index].rawRevocationReason = nil
        emit("REFUND_REVERSED", nil, about: periods[index])
    }

    public mutating func upgrade(to product: String) {
        tick()
        periods[periods.count - 1].isUpgraded = true
        let old = latest
        productId = product
        periods.append(nextTransaction(purchase: now, expires: now + Self.period))
        emit("DID_CHANGE_RENEWAL_PREF", "UPGRADE")
        // Apple also re-signs the upgraded (old) transaction; it must not move the entitlement back.
        emit("DID_CHANGE_RENEWAL_PREF", "UPGRADE", about: old)
    }

    /// Subscribes, then plays random but valid steps until exactly `count` notifications
    /// were sent (the last step may be cut short, as a prefix of a longer life).
    public mutating func playRandomly(notifications count: Int, using generator: inout SeededGenerator) {
        subscribe()
        var expired = false
        while notifications.count < count {
            if expired {
                resubscribe(after: Int64.random(in: 1...20, using: &generator) * Self.day)
                expired = false
                continue
            }
            switch Int.random(in: 0..<10, using: &generator) {
            case 0, 1: renew()
            case 2: setAutoRenew(!autoRenew)
            case 3:
                failBilling(withGrace: Bool.random(using: &generator))
                if Bool.random(using: &generator) { expireGrace() }
                if Bool.random(using: &generator) { renew(subtype: "BILLING_RECOVERY") } else { expire(); expired = true }
            case 4:
                refund(periodIndex: Int.random(in: 0..<periods.count, using: &generator))
            case 5:
                let refunded = periods.indices.filter { periods[$0].revocationDate != nil }
                if let index = refunded.randomElement(using: &generator) { reverseRefund(periodIndex: index) }
            case 6:
                upgrade(to: productId == "com.example.pro.monthly" ? "com.example.max.monthly" : "com.example.pro.monthly")
            case 7:
                setAutoRenew(false)
                expire()
                expired = true
            default: renew()
            }
        }
        notifications.removeLast(notifications.count - count)
    }

    /// The record in-order delivery gives: every notification applied once, in the order
    /// Apple sent them, by the engine the worker runs.
    public static func inOrderRecord(_ notifications: [NotificationSpec]) throws -> EntitlementRecord? {
        var record: EntitlementRecord?
        for notification in notifications {
            record = try EntitlementEngine.apply(notification.event, to: record).record
        }
        return record
    }
}
