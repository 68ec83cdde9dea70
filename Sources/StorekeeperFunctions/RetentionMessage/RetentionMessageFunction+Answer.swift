import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// Turning the chosen rule into Apple's response body: a promotional offer is signed here,
/// with sign-offer's signing code and key; without a key, over the time budget or when
/// signing fails, the default message answers instead.
extension RetentionMessageFunction {
    func answer(_ decision: RetentionChoice.Decision, to request: DecodedRealtimeRequestBody, app: CatalogApp,
                choice: RetentionChoice, overBudget: () -> Bool) -> (RealtimeResponseBody, RetentionChoice.Decision) {
        switch decision.answer {
        case .message(let messageIdentifier):
            return (RealtimeResponseBody(message: .init(messageIdentifier: messageIdentifier)), decision)
        case .alternateProduct(let messageIdentifier, let productId):
            return (RealtimeResponseBody(alternateProduct: .init(messageIdentifier: messageIdentifier, productId: productId)), decision)
        case .promotionalOffer(let messageIdentifier, let offerId, let version):
            let failed: RetentionChoice.Decision
            if overBudget() {
                failed = choice.fallback(.timeBudgetExceeded, detail: "\(decision.rule ?? "-"): before signing")
            } else if let keys {
                do {
                    let offer = try sign(offerId, version: version, messageIdentifier: messageIdentifier, request: request,
                                         app: app, keys: keys)
                    return (RealtimeResponseBody(promotionalOffer: offer), decision)
                } catch {
                    failed = choice.fallback(.signingFailed, detail: "\(decision.rule ?? "-"): \(error)")
                }
            } else {
                failed = choice.fallback(.offerKeyMissing, detail: "\(decision.rule ?? "-"): no offer key is configured")
            }
            return answer(failed, to: request, app: app, choice: choice, overBudget: overBudget)
        }
    }

    /// The offer on the subscription the customer is viewing. V2 names the original
    /// transaction (Apple's recommendation: the signature is then this customer's only); V1
    /// carries no app account token, as a signature made without the app's purchase call needs none.
    private func sign(_ offerId: String, version: CatalogRetention.OfferSignatureVersion, messageIdentifier: String,
                      request: DecodedRealtimeRequestBody, app: CatalogApp,
                      keys: OfferKeySettings) throws -> RealtimeResponseBody.PromotionalOffer {
        switch version {
        case .v2:
            let kind = OfferSignatureJWS.Kind.promotionalOffer(productId: request.productId, offerIdentifier: offerId,
                                                               transactionId: request.originalTransactionId)
            let jws = try OfferSignatureJWS.sign(kind, key: keys.privateKey, keyId: keys.keyId,
                                                 issuerId: try keys.issuer(for: "promotionalOfferSignatureV2"),
                                                 bundleId: app.bundleId, issuedAt: context.clock.realNow())
            return .init(messageIdentifier: messageIdentifier, promotionalOfferSignatureV2: jws)
        case .v1:
            let input = PromotionalOfferSignature.Input(
                bundleId: app.bundleId, keyId: keys.keyId, productId: request.productId, offerId: offerId,
                appAccountToken: "", nonce: UUID().uuidString.lowercased(),
                timestamp: context.clock.realNow().millisecondsSince1970)
            let signed = try PromotionalOfferSignature.sign(input, key: keys.privateKey)
            return .init(messageIdentifier: messageIdentifier,
                         promotionalOfferSignatureV1: .init(signed, productId: request.productId, offerIdentifier: offerId,
                                                            appAccountToken: nil))
        }
    }
}

extension CatalogRetention.Answer {
    /// The response member it answers, as the log names it.
    var kind: String {
        switch self {
        case .message: "message"
        case .alternateProduct: "alternateProduct"
        case .promotionalOffer: "promotionalOffer"
        }
    }
}
