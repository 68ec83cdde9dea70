import FoundationEssentials

/// A legacy app receipt's payload (the content of its PKCS#7 container), read field by
/// field from Apple's ASN.1 layout:
///
///     ReceiptPayload ::= SET OF ReceiptAttribute
///     ReceiptAttribute ::= SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }
///
/// where `value` holds a DER UTF8String, IA5String (dates, RFC 3339) or INTEGER, raw bytes
/// (opaque value, SHA-1 hash), or for type 17 an in-app purchase record in the same layout.
/// Attribute types Apple does not document are skipped; a documented one twice is refused.
///
/// https://developer.apple.com/documentation/appstorereceipts/validating_receipts_on_the_device
public struct AppReceipt: Sendable, Equatable {
    enum Field {
        static let receiptType: Int64 = 0
        static let bundleId: Int64 = 2
        static let appVersion: Int64 = 3
        static let opaqueValue: Int64 = 4
        static let sha1Hash: Int64 = 5
        static let creationDate: Int64 = 12
        static let inAppPurchase: Int64 = 17
        static let originalAppVersion: Int64 = 19
        static let expirationDate: Int64 = 21
    }

    /// Attribute 0; nil when the payload does not say.
    public var receiptType: ReceiptType?
    public var bundleId: String
    public var appVersion: String?
    /// With the bundle id and the device identifier, the input of `sha1Hash` (device-side checks).
    public var opaqueValue: [UInt8]
    public var sha1Hash: [UInt8]
    /// When the App Store made the receipt: the time its signature is validated at.
    public var creationDate: Date
    public var originalAppVersion: String?
    /// Volume purchase receipts only.
    public var expirationDate: Date?
    /// Every in-app purchase record, in the payload's order (a DER SET: sorted by encoding,
    /// which means nothing; sort by date where order matters).
    public var inAppPurchases: [InAppPurchaseReceipt]

    /// The original transaction ids the receipt names, each once, sorted: what the move to
    /// the App Store Server API starts from.
    public var originalTransactionIds: [String] {
        Set(inAppPurchases.map(\.originalTransactionId)).sorted()
    }
}
