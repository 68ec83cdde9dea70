/// A mistake in the catalog file, named by the field it is in (`products["com.x"].type`,
/// `apps[1].appAppleId`; empty for the document as a whole). A function refuses to start
/// with it: exit 78, the message naming the field.
///
/// Two errors are equal when they are the same kind of mistake in the same field.
public struct CatalogError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kinds of mistake, so a test can say which one it meant without reading prose.
    public enum Kind: String, Sendable, Equatable {
        /// Not strict JSON (duplicate keys included: a product listed twice is in two apps).
        case notJSON
        /// A key the catalog does not define: usually a typo.
        case unknownKey
        case missing
        /// A value of the wrong JSON type, or outside its range.
        case invalidValue
        case unknownProductType
        /// A product listed twice (a product id belongs to one app).
        case productInTwoApps
        /// A product naming a bundle id that is not among the catalog's apps.
        case unknownApp
        case undeclaredEntitlement
        case entitlementNotGranted
        /// Several apps, and a product that does not say whose it is.
        case bundleIdRequired
        /// durationDays on a product that is not a NonRenewingSubscription.
        case durationNotAllowed
        case unknownEnvironment
        case unknownTransferPolicy
        /// appAppleId missing while Production data is accepted.
        case appAppleIdRequired
        /// Two apps with the same bundle id or App Apple ID.
        case duplicateApp
        /// A bundle id Apple would not issue: only letters, digits, hyphens and periods
        /// (store keys and subscription references are built from it).
        case invalidBundleId
        /// A webhook's `types` names a type the event vocabulary does not have.
        case unknownEventType
        /// Two webhooks with the same name (their delivery state is kept by name).
        case duplicateWebhook
    }

    public let kind: Kind
    public let field: String
    public let problem: String

    public init(_ kind: Kind, field: String, _ problem: String) {
        self.kind = kind
        self.field = field
        self.problem = problem
    }

    public var description: String { field.isEmpty ? problem : "\(field): \(problem)" }

    public static func == (lhs: CatalogError, rhs: CatalogError) -> Bool {
        lhs.kind == rhs.kind && lhs.field == rhs.field
    }
}
