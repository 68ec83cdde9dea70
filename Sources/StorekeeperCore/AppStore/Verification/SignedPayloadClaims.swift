import FoundationEssentials

/// The few payload fields verification needs: the validation time, the app identity, the
/// environment and the nested JWS, read from the strictly parsed payload before the
/// signature is checked (the time the chain is validated at comes from the payload itself,
/// as in Apple's libraries).
///
/// Everything else in the payload is passed on; typed models are decoded later by whoever
/// needs them.
struct SignedPayloadClaims {
    /// The app identity and environment of a notification, found in `data`, `summary`,
    /// `externalPurchaseToken` or `appData` depending on the notification type.
    struct NotificationScope {
        var bundleId: String?
        var appAppleId: Int64?
        var environment: String?
        var signedTransactionInfo: String?
        var signedRenewalInfo: String?
        /// Only in `appData` (`RESCIND_CONSENT` and later app-level types).
        var signedAppTransactionInfo: String?
        /// Only in `externalPurchaseToken`: sandbox tokens start with "SANDBOX".
        var externalPurchaseId: String?

        init(_ json: StrictJSON, field: String) throws(ShapeError) {
            guard case .object = json else { throw ShapeError("\(field) is not an object") }
            bundleId = try json.string("bundleId")
            appAppleId = try json.integer("appAppleId")
            environment = try json.string("environment")
            signedTransactionInfo = try json.string("signedTransactionInfo")
            signedRenewalInfo = try json.string("signedRenewalInfo")
            signedAppTransactionInfo = try json.string("signedAppTransactionInfo")
            externalPurchaseId = try json.string("externalPurchaseId")
        }
    }

    /// A field whose JSON type is not the one Apple documents.
    struct ShapeError: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }

    var notificationType: String?
    var data: NotificationScope?
    var summary: NotificationScope?
    var externalPurchaseToken: NotificationScope?
    var appData: NotificationScope?

    var transactionId: String?
    var originalTransactionId: String?
    var bundleId: String?
    var appAppleId: Int64?
    var environment: String?
    /// An app transaction names its environment `receiptType`.
    var receiptType: String?
    var receiptCreationDate: Int64?
    var signedDate: Int64?
    /// Only a realtime request carries these two.
    var userLocale: String?
    var requestIdentifier: String?

    init(_ json: StrictJSON) throws(ShapeError) {
        guard case .object = json else { throw ShapeError("payload is not a JSON object") }
        notificationType = try json.string("notificationType")
        func scope(_ field: String) throws(ShapeError) -> NotificationScope? {
            guard let value = json[field] else { return nil }
            return try NotificationScope(value, field: field)
        }
        data = try scope("data")
        summary = try scope("summary")
        externalPurchaseToken = try scope("externalPurchaseToken")
        appData = try scope("appData")
        transactionId = try json.string("transactionId")
        originalTransactionId = try json.string("originalTransactionId")
        bundleId = try json.string("bundleId")
        appAppleId = try json.integer("appAppleId")
        environment = try json.string("environment")
        receiptType = try json.string("receiptType")
        receiptCreationDate = try json.milliseconds("receiptCreationDate")
        signedDate = try json.milliseconds("signedDate")
        userLocale = try json.string("userLocale")
        requestIdentifier = try json.string("requestIdentifier")
    }

    /// The kind of signed data this payload is. A caller that names the kind (a nested
    /// field, a request's `type`) gets a refusal when the payload is of another kind.
    var inferredType: SignedDataType? {
        if notificationType != nil { return .notification }
        if receiptType != nil || receiptCreationDate != nil { return .appTransaction }
        // A realtime request names an original transaction as renewal info does; only it
        // carries the request's identifier and the device's locale.
        if requestIdentifier != nil, userLocale != nil { return .realtimeRequest }
        if transactionId != nil { return .transaction }
        if originalTransactionId != nil { return .renewalInfo }
        return nil
    }

    /// Where a notification keeps its app identity: `data` for most types, `summary` for a
    /// renewal-extension summary, `externalPurchaseToken` for external purchases, `appData`
    /// for notifications about the app (`RESCIND_CONSENT`), as Apple's libraries read it.
    var notificationScope: NotificationScope? {
        data ?? summary ?? externalPurchaseToken ?? appData
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
        case .transaction, .renewalInfo, .realtimeRequest:
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

private extension StrictJSON {
    func string(_ name: String) throws(SignedPayloadClaims.ShapeError) -> String? {
        switch self[name] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        default: throw SignedPayloadClaims.ShapeError("\(name) is not a string")
        }
    }

    func integer(_ name: String) throws(SignedPayloadClaims.ShapeError) -> Int64? {
        switch self[name] {
        case nil, .null?: return nil
        case .number(let literal)?:
            guard let value = Int64(literal) else { throw SignedPayloadClaims.ShapeError("\(name) is not an integer") }
            return value
        default: throw SignedPayloadClaims.ShapeError("\(name) is not a number")
        }
    }

    /// Apple's dates are integer milliseconds; StoreKit Testing in Xcode writes fractional
    /// ones (`1697679936056.485`), read here truncated, as Apple's Python library reads them.
    func milliseconds(_ name: String) throws(SignedPayloadClaims.ShapeError) -> Int64? {
        switch self[name] {
        case nil, .null?: return nil
        case .number(let literal)?:
            if let value = Int64(literal) { return value }
            guard let value = Double(literal), value.isFinite, let whole = Int64(exactly: value.rounded(.towardZero)) else {
                throw SignedPayloadClaims.ShapeError("\(name) is not a date in milliseconds")
            }
            return whole
        default: throw SignedPayloadClaims.ShapeError("\(name) is not a number")
        }
    }
}
