/// The `status` of a verifyReceipt answer. Keeps the raw number, so a new one decodes.
///
/// https://developer.apple.com/documentation/appstorereceipts/status
public struct VerifyReceiptStatus: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: Int

    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let valid = VerifyReceiptStatus(rawValue: 0)
    public static let appStoreCouldNotReadJSON = VerifyReceiptStatus(rawValue: 21000)
    public static let malformedReceiptData = VerifyReceiptStatus(rawValue: 21002)
    public static let receiptCouldNotBeAuthenticated = VerifyReceiptStatus(rawValue: 21003)
    public static let sharedSecretMismatch = VerifyReceiptStatus(rawValue: 21004)
    public static let receiptServerUnavailable = VerifyReceiptStatus(rawValue: 21005)
    /// The receipt is valid but the subscription expired (iOS 6-style receipts); the body
    /// is decoded as for 0.
    public static let subscriptionExpired = VerifyReceiptStatus(rawValue: 21006)
    /// A sandbox receipt sent to production: ask the sandbox.
    public static let sandboxReceiptSentToProduction = VerifyReceiptStatus(rawValue: 21007)
    public static let productionReceiptSentToSandbox = VerifyReceiptStatus(rawValue: 21008)
    public static let internalDataAccessError = VerifyReceiptStatus(rawValue: 21009)
    public static let userAccountNotFound = VerifyReceiptStatus(rawValue: 21010)

    /// A name for logs and answers ("internalDataAccessError" for Apple's whole 21100–21199 range).
    public var name: String {
        switch rawValue {
        case 0: "valid"
        case 21000: "appStoreCouldNotReadJSON"
        case 21001: "notSentAnymore"
        case 21002: "malformedReceiptData"
        case 21003: "receiptCouldNotBeAuthenticated"
        case 21004: "sharedSecretMismatch"
        case 21005: "receiptServerUnavailable"
        case 21006: "subscriptionExpired"
        case 21007: "sandboxReceiptSentToProduction"
        case 21008: "productionReceiptSentToSandbox"
        case 21009, 21100...21199: "internalDataAccessError"
        case 21010: "userAccountNotFound"
        default: "unknown"
        }
    }

    /// Whether the receipt's contents came back (0, and 21006 for old-style receipts).
    public var carriesReceipt: Bool { self == .valid || self == .subscriptionExpired }

    /// Apple's temporary failures: try again later.
    public var isTemporary: Bool {
        rawValue == 21005 || rawValue == 21009 || (21100...21199).contains(rawValue)
    }

    public var description: String { "\(rawValue) (\(name))" }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(Int.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
