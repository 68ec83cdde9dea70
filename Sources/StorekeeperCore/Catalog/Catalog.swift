/// What a deployment sells: its apps, the products each app sells and the entitlements
/// (`pro`, `ads-free`, ...) those products grant. An app's backend asks about entitlements;
/// Apple signs products; the catalog is the one place that maps one to the other.
///
/// It comes from the file `STOREKEEPER_CATALOG` names (`Catalog.parse`), or, without one,
/// from the `APPSTORE_*` variables (`Catalog.singleApp`): one app, in which every product
/// grants an entitlement named after itself, which is what get-entitlements always answered.
/// Secrets never go in it.
public struct Catalog: Sendable, Equatable {
    public var apps: [CatalogApp]
    /// By entitlement name.
    public var entitlements: [String: CatalogEntitlement]
    /// By product id.
    public var products: [String: CatalogProduct]
    /// True for the catalog the `APPSTORE_*` variables describe: a product it does not list
    /// is one of the only app's, of the type Apple signs, granting the entitlement named
    /// after itself.
    public var productsImplied: Bool
    /// Where deliver-events sends events (the `webhooks` section); secrets stay in the environment.
    public var webhooks: [CatalogWebhook]

    public init(apps: [CatalogApp], entitlements: [String: CatalogEntitlement], products: [String: CatalogProduct],
                productsImplied: Bool = false, webhooks: [CatalogWebhook] = []) {
        self.apps = apps
        self.entitlements = entitlements
        self.products = products
        self.productsImplied = productsImplied
        self.webhooks = webhooks
    }

    /// The catalog that `APPSTORE_BUNDLE_ID`, `APPSTORE_APP_APPLE_ID` and
    /// `APPSTORE_ENVIRONMENT` describe.
    public static func singleApp(bundleId: String, appAppleId: Int64?, environments: Set<Environment>) -> Catalog {
        Catalog(apps: [CatalogApp(bundleId: bundleId, appAppleId: appAppleId, environments: environments)],
                entitlements: [:], products: [:], productsImplied: true)
    }

    /// The app a bundle id names, if the deployment serves it.
    public func app(bundleId: String) -> CatalogApp? {
        apps.first { $0.bundleId == bundleId }
    }

    /// The app a numeric App Apple ID names (Apple's realtime requests name apps this way).
    public func app(appAppleId: Int64) -> CatalogApp? {
        apps.first { $0.appAppleId == appAppleId }
    }

    /// What the catalog says of a product: its entry, or in an implied catalog the entry it
    /// implies; nil for a product the catalog does not know (it grants nothing).
    public func product(_ productId: String) -> CatalogProduct? {
        if let product = products[productId] { return product }
        guard productsImplied, let only = apps.first else { return nil }
        return CatalogProduct(productId: productId, bundleId: only.bundleId, entitlements: [productId])
    }

    /// The entitlements a product grants, sorted; none for a product the catalog does not know.
    public func entitlements(grantedBy productId: String) -> [String] {
        product(productId)?.entitlements ?? []
    }
}

/// One app of the deployment.
public struct CatalogApp: Sendable, Equatable {
    public var bundleId: String
    /// Required when Production data is accepted: Apple names the app by it in Production.
    public var appAppleId: Int64?
    /// The environments whose signed data this app accepts.
    public var environments: Set<Environment>
    /// App Review buys in the sandbox, so by default sandbox purchases grant; false makes
    /// them visible but not granting.
    public var sandboxGrants: Bool
    /// What happens when a purchase already linked to one user arrives for another.
    public var transfer: TransferPolicy
    /// The answers to Apple's realtime retention requests (`retention-message`); nil: none.
    public var retention: CatalogRetention?

    public init(bundleId: String, appAppleId: Int64?, environments: Set<Environment>,
                sandboxGrants: Bool = true, transfer: TransferPolicy = .keepFirst) {
        self.bundleId = bundleId
        self.appAppleId = appAppleId
        self.environments = environments
        self.sandboxGrants = sandboxGrants
        self.transfer = transfer
    }

    /// Whether a purchase made in `environment` grants its entitlements.
    public func grants(in environment: Environment?) -> Bool {
        environment != .sandbox || sandboxGrants
    }
}

/// A restore or a transfer: a purchase linked to user A arrives for user B.
public enum TransferPolicy: String, Sendable, Equatable, CaseIterable {
    /// The first user keeps it (Storekeeper's behaviour before the catalog).
    case keepFirst = "keep-first"
    /// It moves to the user it arrived for last; both users' histories say so.
    case moveToLatest = "move-to-latest"
}

public struct CatalogEntitlement: Sendable, Equatable {
    public var description: String?

    public init(description: String? = nil) {
        self.description = description
    }
}

/// One product of one app.
public struct CatalogProduct: Sendable, Equatable {
    public var productId: String
    public var bundleId: String
    /// nil: the type Apple signs.
    public var type: ProductType?
    /// For a non-renewing subscription: how long it lasts from its purchase date. Apple signs
    /// no expiry for these; without a duration their end is unknown.
    public var durationDays: Int?
    /// Sorted; empty for consumables.
    public var entitlements: [String]
    /// An auto-renewable subscription's group (App Store Connect's subscription group id, the
    /// `subscriptionGroupIdentifier` Apple signs): who had any subscription of the group has
    /// no introductory offer left (sign-offer's `decideEligibility`).
    public var subscriptionGroupIdentifier: String?
    /// How its refund requests are answered (`refundPolicy`); nil: no policy (`CatalogRefundPolicy.none`).
    public var refundPolicy: CatalogRefundPolicy?

    public init(productId: String, bundleId: String, type: ProductType? = nil, durationDays: Int? = nil,
                entitlements: [String], subscriptionGroupIdentifier: String? = nil, refundPolicy: CatalogRefundPolicy? = nil) {
        self.productId = productId
        self.bundleId = bundleId
        self.type = type
        self.durationDays = durationDays
        self.entitlements = entitlements.sorted()
        self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
        self.refundPolicy = refundPolicy
    }
}

/// A product's kind as the catalog names it; each is one of Apple's `TransactionType`s.
public enum ProductType: String, Sendable, Equatable, CaseIterable {
    case autoRenewable = "AutoRenewable"
    case nonRenewingSubscription = "NonRenewingSubscription"
    case consumable = "Consumable"
    case nonConsumable = "NonConsumable"

    public var transactionType: TransactionType {
        switch self {
        case .autoRenewable: .autoRenewableSubscription
        case .nonRenewingSubscription: .nonRenewingSubscription
        case .consumable: .consumable
        case .nonConsumable: .nonConsumable
        }
    }
}
