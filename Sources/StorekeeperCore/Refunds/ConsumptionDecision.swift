/// What to answer a refund request with, decided from what is known, with no I/O: the
/// customer's consent, what the app's backend recorded about the transaction and the product's
/// catalog policy. The deadline and the sending are `RefundAnswerer`'s.
///
/// [Send Consumption Information](https://developer.apple.com/documentation/appstoreserverapi/send-consumption-information)
public enum ConsumptionDecision: Sendable, Equatable {
    /// Send this body.
    case send(ConsumptionRequest)
    /// Nothing to send yet; look again later (consent may still be recorded).
    case wait(RefundWaitReason)
    /// Never answer.
    case final(RefundWaitReason)

    static let day: Int64 = 86_400_000

    /// - Parameters:
    ///   - consent: the customer's latest decision; nil when none is recorded.
    ///   - consumption: what set-consumption recorded for the transaction, if anything.
    public static func decide(_ request: RefundRequest, consent: ConsumptionConsent?, consumption: TransactionConsumption?,
                              policy: CatalogRefundPolicy) -> ConsumptionDecision {
        // Apple refuses consumption information for a seat of a group purchase.
        if request.inAppOwnershipType == InAppOwnershipType.assigned.rawValue { return .final(.assignedOwnership) }
        guard let environment = Environment(rawValue: request.environment), AppStoreAPIEnvironment(environment) != nil else {
            return .final(.unsupportedEnvironment)
        }
        // customerConsented must be true: without the customer's consent nothing is shared.
        guard consent?.consented == true else { return .wait(.noConsent) }
        return .send(body(request, consumption: consumption, policy: policy))
    }

    /// The body: absent fields are left out (the encoder omits nil), 0 is written as 0. Apple's
    /// four libraries agree on the v2 body; the Python one requires `deliveryStatus` and
    /// `sampleContentProvided` besides `customerConsented` (Swift, Node and Java only type them
    /// as non-optional), so the three are always sent.
    static func body(_ request: RefundRequest, consumption: TransactionConsumption?, policy: CatalogRefundPolicy) -> ConsumptionRequest {
        // Storekeeper verified the purchase; a backend that did not deliver says so with set-consumption.
        let delivery = consumption?.deliveryStatus ?? DeliveryStatus.delivered.rawValue
        var percentage: Int32?
        if request.productType == TransactionType.autoRenewableSubscription.rawValue {
            percentage = nil  // Apple computes it for auto-renewable subscriptions
        } else if delivery != DeliveryStatus.delivered.rawValue {
            percentage = 0
        } else {
            percentage = consumption?.consumptionPercentage ?? policy.consumptionPercentage
        }
        var preference = policy.refundPreference(daysOfUse: daysOfUse(request),
                                                 reason: request.consumptionRequestReason.flatMap(ConsumptionRequestReason.init(rawValue:)))
        // Apple takes GRANT_PRORATED of a product other than an auto-renewable subscription only
        // with a consumption above 0 (and refuses the whole answer otherwise): no preference then.
        if preference == .grantProrated, request.productType != TransactionType.autoRenewableSubscription.rawValue,
           (percentage ?? 0) == 0 {
            preference = nil
        }
        return ConsumptionRequest(customerConsented: true, deliveryStatus: delivery,
                                  sampleContentProvided: policy.sampleContentProvided,
                                  consumptionPercentage: percentage, refundPreference: preference?.rawValue)
    }

    /// Whole days from the purchase to Apple's request; nil when the purchase date is unknown.
    public static func daysOfUse(_ request: RefundRequest) -> Int64? {
        guard let purchaseDate = request.purchaseDate, request.signedDate >= purchaseDate else { return nil }
        return (request.signedDate - purchaseDate) / day
    }
}
