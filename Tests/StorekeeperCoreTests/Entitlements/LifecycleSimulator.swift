import StorekeeperCore

/// A deterministic random source for reproducible property tests (SplitMix64).
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

/// Plays one auto-renewable subscription the way the App Store does, and emits the
/// notifications Apple would send, each carrying the signed transaction and renewal info as
/// they stand at that moment.
struct LifecycleSimulator {
    static let day: Int64 = 86_400_000
    static let period: Int64 = 30 * day
    static let grace: Int64 = 6 * day

    let originalTransactionId: String
    var now: Int64 = 1_780_272_000_000
    var productId = "com.example.pro.monthly"
    var periods: [JWSTransactionDecodedPayload] = []
    var autoRenew = true
    var inBillingRetry = false
    var graceEnd: Int64?
    var ownership = "PURCHASED"
    var events: [AppleFact] = []
    private var eventCount = 0

    init(originalTransactionId: String = "1000", productType: String = "Auto-Renewable Subscription") {
        self.originalTransactionId = originalTransactionId
        self.productType = productType
    }

    let productType: String
    var latest: JWSTransactionDecodedPayload { periods[periods.count - 1] }

    private mutating func tick(_ milliseconds: Int64 = 60_000) { now += milliseconds }

    private func transaction(id: String, purchase: Int64, expires: Int64?, product: String) -> JWSTransactionDecodedPayload {
        JWSTransactionDecodedPayload(
            transactionId: id, originalTransactionId: originalTransactionId, bundleId: "com.example.storekeeper",
            productId: product, subscriptionGroupIdentifier: "21000001", purchaseDate: purchase,
            originalPurchaseDate: periods.first?.purchaseDate ?? purchase, expiresDate: expires, quantity: 1,
            rawType: productType, rawInAppOwnershipType: ownership, signedDate: now, rawEnvironment: "Sandbox")
    }

    private func renewal() -> JWSRenewalInfoDecodedPayload? {
        guard productType == "Auto-Renewable Subscription" else { return nil }
        return JWSRenewalInfoDecodedPayload(
            rawExpirationIntent: autoRenew ? nil : 1, originalTransactionId: originalTransactionId,
            autoRenewProductId: productId, productId: productId, rawAutoRenewStatus: autoRenew ? 1 : 0,
            isInBillingRetryPeriod: inBillingRetry, gracePeriodExpiresDate: graceEnd, signedDate: now,
            rawEnvironment: "Sandbox")
    }

    private mutating func emit(_ type: String, _ subtype: String?, about transaction: JWSTransactionDecodedPayload? = nil) {
        eventCount += 1
        var signed = transaction ?? latest
        signed.signedDate = now
        events.append(AppleFact(
            .notification(notificationUUID: "\(originalTransactionId)-n\(eventCount)", signedDate: now, type: type, subtype: subtype),
            transaction: signed, renewalInfo: renewal()))
    }

    mutating func subscribe() {
        tick()
        let expires: Int64? = productType == "Auto-Renewable Subscription" ? now + Self.period : nil
        periods.append(transaction(id: "\(originalTransactionId)-t1", purchase: now, expires: expires, product: productId))
        emit(productType == "Auto-Renewable Subscription" ? "SUBSCRIBED" : "ONE_TIME_CHARGE",
             productType == "Auto-Renewable Subscription" ? "INITIAL_BUY" : nil)
    }

    mutating func renew(subtype: String? = nil) {
        let start = max(latest.expiresDate ?? now, now)
        now = start + 1000
        inBillingRetry = false
        graceEnd = nil
        periods.append(transaction(id: "\(originalTransactionId)-t\(periods.count + 1)", purchase: start,
                                   expires: start + Self.period, product: productId))
        emit("DID_RENEW", subtype)
    }

    mutating func setAutoRenew(_ enabled: Bool) {
        tick()
        autoRenew = enabled
        emit("DID_CHANGE_RENEWAL_STATUS", enabled ? "AUTO_RENEW_ENABLED" : "AUTO_RENEW_DISABLED")
    }

    mutating func failBilling(withGrace: Bool) {
        now = max(now, (latest.expiresDate ?? now)) + 1000
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
        now = max(now, (latest.expiresDate ?? now)) + 1000
        let subtype = inBillingRetry ? "BILLING_RETRY" : "VOLUNTARY"
        inBillingRetry = false
        graceEnd = nil
        emit("EXPIRED", subtype)
    }

    mutating func refund(periodIndex: Int? = nil) {
        tick()
        let index = periodIndex ?? periods.count - 1
        periods[index].revocationDate = now
        periods[index].rawRevocationReason = 1
        emit(ownership == "FAMILY_SHARED" ? "REVOKE" : "REFUND", nil, about: periods[index])
    }

    mutating func reverseRefund(periodIndex: Int? = nil) {
        tick()
        let index = periodIndex ?? periods.count - 1
        periods[index].revocationDate = nil
        periods[index].rawRevocationReason = nil
        emit("REFUND_REVERSED", nil, about: periods[index])
    }

    mutating func upgrade(to product: String) {
        tick()
        periods[periods.count - 1].isUpgraded = true
        let old = latest
        productId = product
        periods.append(transaction(id: "\(originalTransactionId)-t\(periods.count + 1)", purchase: now,
                                   expires: now + Self.period, product: product))
        emit("DID_CHANGE_RENEWAL_PREF", "UPGRADE")
        // Apple also re-signs the upgraded (old) transaction; it must not move the entitlement back.
        var signedOld = old
        signedOld.isUpgraded = true
        emit("DID_CHANGE_RENEWAL_PREF", "UPGRADE", about: signedOld)
    }

    /// A random but valid lifecycle of `steps` steps after the purchase.
    static func random(steps: Int, using generator: inout SeededGenerator, id: String = "1000") -> LifecycleSimulator {
        var simulator = LifecycleSimulator(originalTransactionId: id)
        simulator.subscribe()
        var expired = false
        for _ in 0..<steps {
            let choice = Int.random(in: 0..<10, using: &generator)
            if expired {
                // Resubscribing after expiry is a new purchase in the same original transaction.
                simulator.renew(subtype: nil)
                expired = false
                continue
            }
            switch choice {
            case 0, 1: simulator.renew()
            case 2: simulator.setAutoRenew(!simulator.autoRenew)
            case 3:
                simulator.failBilling(withGrace: Bool.random(using: &generator))
                if Bool.random(using: &generator) { simulator.expireGrace() }
                if Bool.random(using: &generator) { simulator.renew(subtype: "BILLING_RECOVERY") } else { simulator.expire(); expired = true }
            case 4:
                simulator.refund(periodIndex: Int.random(in: 0..<simulator.periods.count, using: &generator))
            case 5:
                let refunded = simulator.periods.indices.filter { simulator.periods[$0].revocationDate != nil }
                if let index = refunded.randomElement(using: &generator) { simulator.reverseRefund(periodIndex: index) }
            case 6: simulator.upgrade(to: simulator.productId == "com.example.pro.monthly" ? "com.example.max.monthly" : "com.example.pro.monthly")
            case 7:
                simulator.setAutoRenew(false)
                simulator.expire()
                expired = true
            default: simulator.renew()
            }
        }
        return simulator
    }
}
