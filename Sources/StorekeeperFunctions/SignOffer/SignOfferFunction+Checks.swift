import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// What is checked before signing: the product and its app, then, when the request asks,
/// the customer's stored history (read only).
extension SignOfferFunction {
    /// The product's app: the catalog must know the product, as an auto-renewable
    /// subscription (or of the type Apple signs), and a `bundleId` given must be its app.
    func app(of productId: String, request: Request) throws -> CatalogApp {
        guard let product = catalog.product(productId) else {
            throw FunctionError.badInput(message: "productId \(productId) is not in the catalog")
        }
        if let type = product.type, type != .autoRenewable {
            throw FunctionError.badInput(message: "\(productId) is a \(type.rawValue) product: offers are for auto-renewable subscriptions")
        }
        let app = try catalog.app(requested: request.bundleId ?? product.bundleId)
        guard app.bundleId == product.bundleId else {
            throw FunctionError.badInput(message: "productId \(productId) belongs to \(product.bundleId), not to bundleId \(app.bundleId)")
        }
        return app
    }

    /// With `"winBackOffer": true`, the offer must be listed in the customer's renewal info.
    func checkWinBack(_ request: Request, offerId: String, app: CatalogApp) throws {
        guard request.winBackOffer == true else { return }
        guard try eligibility(request, app: app).winBackOfferAllowed(offerId) else {
            throw OfferError(.offerNotEligible,
                             "no renewal info of the customer lists \(offerId) in eligibleWinBackOfferIds")
        }
    }

    /// The caller's `allowIntroductoryOffer`, or with `"decideEligibility": true` the one the
    /// customer's history gives; and whether it was decided here.
    func introductoryOfferAllowed(_ request: Request, productId: String, app: CatalogApp) throws -> (Bool, decided: Bool) {
        switch (request.allowIntroductoryOffer, request.decideEligibility == true) {
        case (let allow?, false):
            return (allow, false)
        case (nil, true):
            let eligibility = try eligibility(request, app: app)
            let group = catalog.product(productId)?.subscriptionGroupIdentifier ?? eligibility.subscriptionGroup(ofProduct: productId)
            guard let allow = eligibility.introductoryOfferAllowed(productId: productId, subscriptionGroup: group) else {
                throw FunctionError.badInput(message:
                    "decideEligibility needs \(productId)'s subscription group: set its subscriptionGroupIdentifier in the catalog")
            }
            return (allow, true)
        default:
            throw FunctionError.badInput(message: "give allowIntroductoryOffer or \"decideEligibility\": true (not both)")
        }
    }

    /// The customer's subscriptions of the app, by the first key that finds them; none for
    /// a customer Storekeeper never heard of.
    private func eligibility(_ request: Request, app: CatalogApp) throws -> OfferEligibility {
        let keys = try request.customerKeys()
        let lookup = CustomerLookup(store: try context.adapters.store())
        for key in keys {
            if let source = try lookup.source(of: key, apps: [app.bundleId]) {
                return OfferEligibility(records: source.records, bundleId: app.bundleId)
            }
        }
        return OfferEligibility(records: [], bundleId: app.bundleId)
    }

    /// The Advanced Commerce request as the caller wrote it (members in their order, numbers
    /// as written), compact; it must have the shape every in-app request has.
    static func advancedCommerceRequest(_ value: JSONValue?, body: [UInt8]) throws -> [UInt8] {
        guard case .object(let members)? = value else {
            throw FunctionError.badInput(message: "request must be the Advanced Commerce request as a JSON object")
        }
        guard members["operation"]?.stringValue?.isEmpty == false, members["version"]?.stringValue?.isEmpty == false,
              let reference = members["requestInfo"]?["requestReferenceId"]?.stringValue, UUID(uuidString: reference) != nil else {
            throw FunctionError.badInput(message: "request needs operation, version and requestInfo.requestReferenceId (a UUID)")
        }
        guard let original = try? StrictJSON.parse(body), let request = original["request"] else {
            throw FunctionError.badInput(message: "request must be the Advanced Commerce request as a JSON object")
        }
        return request.encoded()
    }
}
