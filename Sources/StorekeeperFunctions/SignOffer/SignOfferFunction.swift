import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// `sign-offer`: the app's backend, having decided a user may have an offer, asks for the
/// signature StoreKit needs to present it: the original promotional offer signature, or the
/// JWS of a promotional offer, an introductory offer eligibility override or an Advanced
/// Commerce in-app request. Optional checks read the customer's stored history first.
public final class SignOfferFunction: TypedFunction {
    public struct Response: Encodable {
        var keyId: String?
        var nonce: String?
        var timestamp: Int64?
        var signature: String
        /// Only with `"decideEligibility": true`: what was decided (the JWS says it too).
        var allowIntroductoryOffer: Bool?
    }

    public static let descriptor = FunctionDescriptor(
        name: "sign-offer",
        route: "/appstore/offers/sign",
        method: "POST",
        visibility: .internal,
        summary: "Sign a subscription offer for StoreKit: promotional offers (original and JWS), introductory offer eligibility, Advanced Commerce in-app requests.",
        request: """
            {"kind": "promotionalOffer", "productId", "offerId", "appAccountToken": "<UUID, optional>"}
            {"kind": "promotionalOfferV2", "productId", "offerId", "transactionId": "<optional, recommended>"}
            {"kind": "introductoryOfferEligibility", "productId", "transactionId",
             "allowIntroductoryOffer": true | false  or  "decideEligibility": true}
            {"kind": "advancedCommerceInApp", "request": {"operation", "version", "requestInfo": {"requestReferenceId"}, ...}}
              "bundleId": the app (one of the catalog's; by default the product's app, or the only one).
              "winBackOffer": true (promotional kinds): sign only if the customer's stored renewal info lists
              offerId in eligibleWinBackOfferIds. "decideEligibility": true: eligible unless the customer ever had
              a subscription of the product's group (the catalog's subscriptionGroupIdentifier). The checks find the
              customer by "userId", else transactionId (or an appTransactionId), else appAccountToken.
            """,
        response: """
            promotionalOffer: {"keyId", "nonce": "<lowercase UUID>", "timestamp": <ms>, "signature": "<base64 DER>"}
            the other kinds: {"signature": "<compact JWS>"} (+ "allowIntroductoryOffer" when decided)
            invalid_request: 400, exit 65; offer_not_eligible (a win-back offer not listed): 403, exit 65;
            no key, or no APPSTORE_ISSUER_ID for a JWS kind: configuration_error, exit 78.
            """,
        variables: OfferKeySettings.variables + AppStoreSettings.catalogVariables
            + [.declared(RuntimeSettings.storeURL, "read by the eligibility checks only")]
    )

    let context: FunctionContext
    let keys: OfferKeySettings
    let catalog: Catalog

    public init(context: FunctionContext) throws {
        self.context = context
        keys = try OfferKeySettings(environment: context.environment)
        catalog = try StorekeeperSettings.catalog(in: context.environment)
    }

    public func handle(_ request: Request, call: FunctionRequest) throws -> Reply<Response> {
        let kind = try request.checkedKind()
        let response: Response
        switch kind {
        case .promotionalOffer: response = try signOriginal(request)
        case .promotionalOfferV2: response = try signPromotionalV2(request)
        case .introductoryOfferEligibility: response = try signIntroductoryEligibility(request)
        case .advancedCommerceInApp: response = try signAdvancedCommerce(request, body: call.body)
        }
        context.log.info("offer_signed", ["kind": kind.rawValue, "product": request.productId ?? "-",
                                          "offer": request.offerId ?? "-"])
        return Reply(response)
    }

    private func signOriginal(_ request: Request) throws -> Response {
        let productId = try Self.identifier(request.productId, field: .productId)
        let offerId = try Self.identifier(request.offerId, field: .offerId)
        let token = try request.lowercasedAppAccountToken()
        let app = try app(of: productId, request: request)
        try checkWinBack(request, offerId: offerId, app: app)
        let input = PromotionalOfferSignature.Input(
            bundleId: app.bundleId, keyId: keys.keyId, productId: productId, offerId: offerId,
            appAccountToken: token, nonce: UUID().uuidString.lowercased(),
            timestamp: context.clock.realNow().millisecondsSince1970)
        let signed = try PromotionalOfferSignature.sign(input, key: keys.privateKey)
        return Response(keyId: signed.keyId, nonce: signed.nonce, timestamp: signed.timestamp, signature: signed.signature)
    }

    private func signPromotionalV2(_ request: Request) throws -> Response {
        let productId = try Self.identifier(request.productId, field: .productId)
        let offerId = try Self.identifier(request.offerId, field: .offerId)
        let transactionId = try request.transactionId.map { try Self.identifier($0, field: .transactionId) }
        let app = try app(of: productId, request: request)
        try checkWinBack(request, offerId: offerId, app: app)
        let kind = OfferSignatureJWS.Kind.promotionalOffer(productId: productId, offerIdentifier: offerId, transactionId: transactionId)
        return Response(signature: try sign(kind, app: app, named: "promotionalOfferV2"))
    }

    private func signIntroductoryEligibility(_ request: Request) throws -> Response {
        let productId = try Self.identifier(request.productId, field: .productId)
        let transactionId = try Self.identifier(request.transactionId, field: .transactionId)
        let app = try app(of: productId, request: request)
        let (allow, decided) = try introductoryOfferAllowed(request, productId: productId, app: app)
        let kind = OfferSignatureJWS.Kind.introductoryOfferEligibility(
            productId: productId, allowIntroductoryOffer: allow, transactionId: transactionId)
        return Response(signature: try sign(kind, app: app, named: "introductoryOfferEligibility"),
                        allowIntroductoryOffer: decided ? allow : nil)
    }

    private func signAdvancedCommerce(_ request: Request, body: [UInt8]) throws -> Response {
        let json = try Self.advancedCommerceRequest(request.request, body: body)
        let app = try catalog.app(requested: request.bundleId)
        return Response(signature: try sign(.advancedCommerceInApp(requestJSON: json), app: app, named: "advancedCommerceInApp"))
    }

    private func sign(_ kind: OfferSignatureJWS.Kind, app: CatalogApp, named name: String) throws -> String {
        try OfferSignatureJWS.sign(kind, key: keys.privateKey, keyId: keys.keyId, issuerId: try keys.issuer(for: name),
                                   bundleId: app.bundleId, issuedAt: context.clock.realNow())
    }
}

extension SignOfferFunction.Response {
    init(signature: String, allowIntroductoryOffer: Bool? = nil) {
        self.init(keyId: nil, nonce: nil, timestamp: nil, signature: signature, allowIntroductoryOffer: allowIntroductoryOffer)
    }
}
