import FoundationEssentials

/// The few payload fields verification needs: the validation time, the app identity and the
/// environment, read straight from the payload bytes before the signature is checked (the
/// time the chain is validated at comes from the payload itself, as in Apple's libraries).
///
/// Everything else in the payload is passed on untouched; typed models are decoded later by
/// whoever needs them.
struct SignedPayloadClaims: Decodable {
    /// The app identity and environment of a notification, found in `data`, `summary` or
    /// `externalPurchaseToken` depending on the notification type.
    struct NotificationScope: Decodable {
        var bundleId: String?
        var appAppleId: Int64?
        var environment: String?
        var signedTransactionInfo: String?
        var signedRenewalInfo: String?
        /// Only in `externalPurchaseToken`: sandbox tokens start with "SANDBOX".
        var externalPurchaseId: String?
    }

    var notificationType: String?
    var data: NotificationScope?
    var summary: NotificationScope?
    var externalPurchaseToken: NotificationScope?

    var transactionId: String?
    var originalTransactionId: String?
    var bundleId: String?
    var appAppleId: Int64?
    var environment: String?
    /// An app transaction names its environment `receiptType`.
    var receiptType: String?
    var receiptCreationDate: Int64?
    var signedDate: Int64?

    /// The kind of signed data this payload looks like, when the caller did not say.
    var inferredType: SignedDataType? {
        if notificationType != nil { return .notification }
        if receiptType != nil || receiptCreationDate != nil { return .appTransaction }
        if transactionId != nil { return .transaction }
        if originalTransactionId != nil { return .renewalInfo }
        return nil
    }

    /// Where a notification keeps its app identity: `data` for most types, `summary` for a
    /// renewal-extension summary, `externalPurchaseToken` for external purchases.
    var notificationScope: NotificationScope? {
        data ?? summary ?? externalPurchaseToken
    }

    /// The environment the payload declares for `type`.
    func environment(for type: SignedDataType) -> String? {
        switch type {
        case .notification:
            if let environment = notificationScope?.environment { return environment }
            if let externalPurchaseId = externalPurchaseToken?.externalPurchaseId {
                return externalPurchaseId.hasPrefix("SANDBOX") ? "Sandbox" : "Production"
            }
            return nil
        case .appTransaction:
            return receiptType
        case .transaction, .renewalInfo:
            return environment
        }
    }

    /// The instant the chain is validated at when online checks are off: when Apple signed
    /// the data (an app transaction: when the receipt was created).
    func signingTime(for type: SignedDataType) -> Date? {
        let milliseconds = type == .appTransaction ? (receiptCreationDate ?? signedDate) : signedDate
        return milliseconds.map { Date(timeIntervalSince1970: Double($0) / 1000) }
    }
}
