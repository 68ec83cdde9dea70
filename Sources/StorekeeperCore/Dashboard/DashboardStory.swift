/// A timeline entry in words, for the dashboard's customer view: Apple's notification types
/// and subtypes, and Storekeeper's own happenings (ingest, reconciliation, support). A type
/// it does not know is told as Apple names it.
enum DashboardStory {
    static let phrases: [String: String] = [
        "SUBSCRIBED": "subscribed", "SUBSCRIBED/INITIAL_BUY": "subscribed", "SUBSCRIBED/RESUBSCRIBE": "subscribed again",
        "DID_RENEW": "renewed", "DID_RENEW/BILLING_RECOVERY": "renewed after a billing problem",
        "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED": "turned auto-renew off",
        "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_ENABLED": "turned auto-renew on",
        "DID_CHANGE_RENEWAL_PREF": "changed the plan it renews to", "DID_CHANGE_RENEWAL_PREF/UPGRADE": "upgraded",
        "DID_CHANGE_RENEWAL_PREF/DOWNGRADE": "chose to downgrade at the next renewal",
        "DID_FAIL_TO_RENEW": "failed to renew (billing problem), Apple keeps trying",
        "DID_FAIL_TO_RENEW/GRACE_PERIOD": "failed to renew (billing problem), access kept in the grace period",
        "GRACE_PERIOD_EXPIRED": "grace period ended", "EXPIRED": "expired",
        "EXPIRED/VOLUNTARY": "expired: the customer had turned auto-renew off",
        "EXPIRED/BILLING_RETRY": "expired: Apple could not charge",
        "EXPIRED/PRICE_INCREASE": "expired: the customer did not accept a price increase",
        "EXPIRED/PRODUCT_NOT_FOR_SALE": "expired: the product is no longer for sale",
        "REFUND": "refunded by Apple", "REFUND_DECLINED": "refund request declined by Apple",
        "REFUND_REVERSED": "refund reversed by Apple", "CONSUMPTION_REQUEST": "asked Apple for a refund",
        "REVOKE": "access withdrawn (Family Sharing ended)", "OFFER_REDEEMED": "redeemed an offer",
        "PRICE_INCREASE/PENDING": "was told of a price increase", "PRICE_INCREASE/ACCEPTED": "accepted a price increase",
        "RENEWAL_EXTENDED": "renewal date extended", "ONE_TIME_CHARGE": "bought a one-time purchase",
        "TEST": "test notification", "TRANSACTION": "purchase reported by the app",
        "RECONCILIATION": "corrected by reconciliation (a notification had been lost)",
        "MIGRATION": "migrated from a receipt", "IMPORT": "imported", "CUSTOMER_DELETED": "customer's data deleted",
    ]

    static func words(_ entry: HistoryEntry) -> String {
        let key = entry.type + (entry.subtype.map { "/" + $0 } ?? "")
        if let phrase = phrases[key] { return phrase }
        switch entry.type {
        case "GRANT_ADDED": return "granted \(entry.entitlement ?? "an entitlement")" + reason(entry)
        case "GRANT_REVOKED": return "grant of \(entry.entitlement ?? "an entitlement") revoked" + reason(entry)
        case "TRANSFER": return "\(entry.entitlement ?? "purchases") transferred, other user \(entry.otherUserId ?? "?")" + reason(entry)
        case "MERGE": return "merged with user \(entry.otherUserId ?? "?")" + reason(entry)
        default:
            let base = phrases[entry.type] ?? entry.type
            return base + (entry.subtype.map { " (\($0))" } ?? "")
        }
    }

    private static func reason(_ entry: HistoryEntry) -> String {
        entry.reason.map { ": \u{201C}\($0)\u{201D}" } ?? ""
    }

    static func source(_ entry: HistoryEntry) -> String {
        switch entry.source {
        case "notification": "Apple's notification"
        case "ingest": "the app"
        case "reconciliation": "reconciliation with Apple"
        case "migration": "receipt migration"
        case "import": "import"
        case "support": "support" + (entry.actor.map { ", \($0)" } ?? "")
        default: entry.source
        }
    }
}
