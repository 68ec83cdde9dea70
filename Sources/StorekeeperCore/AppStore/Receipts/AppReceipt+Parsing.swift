import FoundationEssentials

extension AppReceipt {
    /// More in-app records than any real receipt holds; a bound on work, not a policy.
    public static let maximumInAppPurchases = 100_000

    /// Reads a receipt payload (DER). Throws INVALID_RECEIPT_FORMAT for anything else.
    public init(payload: [UInt8]) throws(ReceiptError) {
        let attributes = try Self.attributes(payload[...], "receipt payload")
        var receiptType: ReceiptType?
        var bundleId: String?
        var appVersion: String?
        var opaqueValue: [UInt8] = []
        var sha1Hash: [UInt8] = []
        var creationDate: Date?
        var originalAppVersion: String?
        var expirationDate: Date?
        var purchases: [InAppPurchaseReceipt] = []
        var seen: Set<Int64> = []

        for attribute in attributes {
            let type = attribute.type
            if type != Field.inAppPurchase, [Field.receiptType, Field.bundleId, Field.appVersion, Field.opaqueValue,
                Field.sha1Hash, Field.creationDate, Field.originalAppVersion, Field.expirationDate].contains(type) {
                guard seen.insert(type).inserted else { throw .format("receipt attribute \(type) appears twice") }
            }
            switch type {
            case Field.receiptType: receiptType = ReceiptType(rawValue: try attribute.string())
            case Field.bundleId: bundleId = try attribute.string()
            case Field.appVersion: appVersion = try attribute.string()
            case Field.opaqueValue: opaqueValue = Array(attribute.value)
            case Field.sha1Hash: sha1Hash = Array(attribute.value)
            case Field.creationDate: creationDate = try attribute.date()
            case Field.originalAppVersion: originalAppVersion = try attribute.string()
            case Field.expirationDate: expirationDate = try attribute.date()
            case Field.inAppPurchase:
                guard purchases.count < Self.maximumInAppPurchases else { throw .format("more than \(Self.maximumInAppPurchases) in-app purchase records") }
                purchases.append(try InAppPurchaseReceipt(record: attribute.value, index: purchases.count))
            default: continue
            }
        }
        guard let bundleId, !bundleId.isEmpty else { throw .format("the receipt has no bundle id (attribute 2)") }
        guard let creationDate else { throw .format("the receipt has no creation date (attribute 12)") }
        self.init(receiptType: receiptType, bundleId: bundleId, appVersion: appVersion, opaqueValue: opaqueValue,
                  sha1Hash: sha1Hash, creationDate: creationDate, originalAppVersion: originalAppVersion,
                  expirationDate: expirationDate, inAppPurchases: purchases)
    }

    /// One ReceiptAttribute: its type and the bytes inside its OCTET STRING.
    struct Attribute {
        let type: Int64
        let value: ArraySlice<UInt8>

        /// The value as a DER UTF8String or IA5String.
        func string() throws(ReceiptError) -> String {
            let element = try DERReader.single(value, try Self.peekTag(value), "attribute \(type)")
            return try element.string("attribute \(type)")
        }

        func integer() throws(ReceiptError) -> Int64 {
            try DERReader.single(value, DERReader.Tag.integer, "attribute \(type)").integer("attribute \(type)")
        }

        /// An RFC 3339 IA5String; an empty string is nil (Apple writes fields that do not apply so).
        func date() throws(ReceiptError) -> Date? {
            let text = try string()
            if text.isEmpty { return nil }
            guard let date = ReceiptDate.parse(text) else { throw .format("attribute \(type): \"\(text.prefix(40))\" is not an RFC 3339 date") }
            return date
        }

        private static func peekTag(_ value: ArraySlice<UInt8>) throws(ReceiptError) -> UInt8 {
            guard let tag = value.first, tag == DERReader.Tag.utf8String || tag == DERReader.Tag.ia5String else {
                throw .format("a string attribute is not a UTF8String or IA5String")
            }
            return tag
        }
    }

    /// The attributes of a SET OF ReceiptAttribute that makes up all of `bytes`.
    static func attributes(_ bytes: ArraySlice<UInt8>, _ what: String) throws(ReceiptError) -> [Attribute] {
        let set = try DERReader.single(bytes, DERReader.Tag.set, what)
        var reader = DERReader(set.value)
        var attributes: [Attribute] = []
        while !reader.isAtEnd {
            let sequence = try reader.next(DERReader.Tag.sequence, "an attribute of the \(what)")
            var fields = DERReader(sequence.value)
            let type = try fields.next(DERReader.Tag.integer, "an attribute type").integer("an attribute type")
            _ = try fields.next(DERReader.Tag.integer, "an attribute version").integer("an attribute version")
            let value = try fields.next(DERReader.Tag.octetString, "an attribute value")
            guard fields.isAtEnd else { throw .format("attribute \(type) of the \(what) has more than three fields") }
            attributes.append(Attribute(type: type, value: value.value))
        }
        return attributes
    }
}

extension InAppPurchaseReceipt {
    /// Reads one in-app purchase record (the inside of an attribute 17).
    init(record: ArraySlice<UInt8>, index: Int) throws(ReceiptError) {
        let what = "in-app purchase record \(index)"
        var quantity: Int64 = 1
        var productId: String?
        var transactionId: String?
        var originalTransactionId: String?
        var purchaseDate: Date?
        var originalPurchaseDate: Date?
        var expiresDate: Date?
        var cancellationDate: Date?
        var webOrderLineItemId: Int64?
        var isTrialPeriod: Bool?
        var isInIntroOfferPeriod: Bool?
        var promotionalOfferId: String?
        var seen: Set<Int64> = []
        for attribute in try AppReceipt.attributes(record, what) {
            let type = attribute.type
            // Undocumented types (1707, 1710, 1714...) are skipped; a documented one twice is refused.
            guard Field.all.contains(type) else { continue }
            guard seen.insert(type).inserted else { throw .format("\(what): attribute \(type) appears twice") }
            switch type {
            case Field.quantity: quantity = try attribute.integer()
            case Field.productId: productId = try attribute.string()
            case Field.transactionId: transactionId = try attribute.string()
            case Field.originalTransactionId: originalTransactionId = try attribute.string()
            case Field.purchaseDate: purchaseDate = try attribute.date()
            case Field.originalPurchaseDate: originalPurchaseDate = try attribute.date()
            case Field.expiresDate: expiresDate = try attribute.date()
            case Field.cancellationDate: cancellationDate = try attribute.date()
            case Field.webOrderLineItemId: webOrderLineItemId = try attribute.integer()
            case Field.isTrialPeriod: isTrialPeriod = try attribute.integer() != 0
            case Field.isInIntroOfferPeriod: isInIntroOfferPeriod = try attribute.integer() != 0
            case Field.promotionalOfferId: promotionalOfferId = try attribute.string()
            default: continue
            }
        }
        guard let productId, !productId.isEmpty else { throw .format("\(what) has no product id (1702)") }
        guard let transactionId, !transactionId.isEmpty else { throw .format("\(what) has no transaction id (1703)") }
        guard let purchaseDate else { throw .format("\(what) has no purchase date (1704)") }
        self.init(
            quantity: quantity, productId: productId, transactionId: transactionId,
            // Apple's JSON says the original id equals the transaction id when it is not a restore.
            originalTransactionId: originalTransactionId.flatMap { $0.isEmpty ? nil : $0 } ?? transactionId,
            purchaseDate: purchaseDate, originalPurchaseDate: originalPurchaseDate, expiresDate: expiresDate,
            cancellationDate: cancellationDate, webOrderLineItemId: webOrderLineItemId,
            isTrialPeriod: isTrialPeriod, isInIntroOfferPeriod: isInIntroOfferPeriod,
            promotionalOfferId: promotionalOfferId)
    }
}
