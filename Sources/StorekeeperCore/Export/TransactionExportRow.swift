/// One transaction as export-data writes it: the version Apple signed last, the app it is
/// stored under and the user who owns it. The columns are documented in the README
/// ("export-data") and never renamed or reordered; new ones are added at the end.
public struct TransactionExportRow: Sendable {
    public var facts: TransactionFacts
    /// The bundle id the purchase is stored under.
    public var app: String
    public var userId: String?

    public init(facts: TransactionFacts, app: String, userId: String?) {
        self.facts = facts
        self.app = app
        self.userId = userId
    }

    /// Every column, in order, with how a row fills it. Apple's wire values as Apple spells
    /// them (a value Apple adds later is written as it came).
    public static let columns: [(name: String, cell: @Sendable (TransactionExportRow) -> ExportCell)] = [
        ("transactionId", { .text($0.facts.transactionId) }),
        ("originalTransactionId", { .text($0.facts.originalTransactionId) }),
        ("webOrderLineItemId", { .text($0.facts.webOrderLineItemId) }),
        ("app", { .text($0.app) }),
        ("productId", { .text($0.facts.productId) }),
        ("type", { .text($0.facts.rawType) }),
        ("transactionReason", { .text($0.facts.rawTransactionReason) }),
        ("subscriptionGroupIdentifier", { .text($0.facts.subscriptionGroupIdentifier) }),
        ("purchaseDate", { .date($0.facts.purchaseDate) }),
        ("originalPurchaseDate", { .date($0.facts.originalPurchaseDate) }),
        ("expiresDate", { .date($0.facts.expiresDate) }),
        ("price", { .integer($0.facts.price) }),
        ("currency", { .text($0.facts.currency) }),
        ("offerType", { .integer($0.facts.rawOfferType) }),
        ("offerIdentifier", { .text($0.facts.offerIdentifier) }),
        ("offerDiscountType", { .text($0.facts.rawOfferDiscountType) }),
        ("offerPeriod", { .text($0.facts.offerPeriod) }),
        ("environment", { .text($0.facts.rawEnvironment) }),
        ("storefront", { .text($0.facts.storefront) }),
        ("inAppOwnershipType", { .text($0.facts.rawInAppOwnershipType) }),
        ("revocationDate", { .date($0.facts.revocationDate) }),
        ("revocationReason", { .integer($0.facts.revocationReason) }),
        ("revocationType", { .text($0.facts.rawRevocationType) }),
        ("revocationPercentage", { .integer($0.facts.revocationPercentage) }),
        ("isUpgraded", { .bool($0.facts.isUpgraded) }),
        ("userId", { .text($0.userId) }),
        ("signedDate", { .date($0.facts.signedDate) }),
    ]

    public static var columnNames: [String] { columns.map(\.name) }

    public var cells: [ExportCell] { Self.columns.map { $0.cell(self) } }
}
