import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// `set-consumption`: what Storekeeper cannot know about a refund request, from the app's
/// backend or support: the customer's consent to share consumption data with Apple (given or
/// withdrawn), a transaction's delivery status and how much of it was consumed. The worker
/// reads them when it answers a CONSUMPTION_REQUEST; each is a line of the customer's audit
/// trail when the customer is known.
public final class SetConsumptionFunction: TypedFunction {
    public typealias Request = SetConsumptionRequest

    public struct Response: Encodable {
        var userId: String?
        var appAccountToken: String?
        var consent: ConsumptionConsent?
        var transactionId: String?
        var consumption: TransactionConsumption?
    }

    public static let descriptor = FunctionDescriptor(
        name: "set-consumption",
        route: "/appstore/consumption",
        method: "POST",
        visibility: .internal,
        summary: "Record a customer's consent to share consumption data with Apple, and a transaction's delivery status and consumption, for refund requests.",
        request: """
            {"userId": "..." | "appAccountToken": "<UUID>", "customerConsented": true | false,
             "transactionId": "<Apple's id>", "deliveryStatus": "DELIVERED" | "UNDELIVERED_QUALITY_ISSUE" |
             "UNDELIVERED_WRONG_ITEM" | "UNDELIVERED_SERVER_OUTAGE" | "UNDELIVERED_OTHER",
             "consumptionPercentage": 0..100000 (milliunits: 50000 is half), "reason": "why (optional, kept in the audit trail)"}
              the consent part (customerConsented with exactly one of userId, appAccountToken: false withdraws it),
              the transaction part (transactionId with deliveryStatus and/or consumptionPercentage; a field not
              given keeps what was recorded), or both. An appAccountToken whose user is known records for the user.
              An undelivered purchase was not consumed: its consumptionPercentage is 0.
            """,
        response: """
            {"userId"?, "appAccountToken"?, "consent": {"consented", "recordedAt", "recordedBy", "reason"}?,
             "transactionId"?, "consumption": {"deliveryStatus", "consumptionPercentage", "recordedAt", "recordedBy", "reason"}?}
            invalid_request, invalid_delivery_status, invalid_consumption_percentage: 400, exit 65;
            customer_deleted: 404, exit 65; the store failing: 503, exit 75.
            """,
        variables: SupportWiring.variables,
        scope: .support
    )

    private let support: SupportWiring

    public init(context: FunctionContext) throws {
        support = SupportWiring(context: context)
    }

    public func handle(_ request: Request, call: FunctionRequest) throws -> Reply<Response> {
        let consent = try request.consentSubject()
        let consumption = try request.consumptionSubject()
        guard consent != nil || consumption != nil else {
            throw FunctionError.badInput(message: "give customerConsented (with userId or appAccountToken), or transactionId with deliveryStatus or consumptionPercentage")
        }
        let action = support.action(for: call, reason: try request.checkedReason())
        let store = try support.store()
        let facts = ConsumptionFactsRepository(store: store)
        var response = Response()
        // The user whose audit trail records it: named, or the appAccountToken's.
        var userId = consent?.userId ?? request.userId
        if userId == nil, let token = consent?.appAccountToken ?? request.appAccountToken.map({ $0.lowercased() }) {
            userId = try EntitlementRepository(store: store).user(ofAppAccountToken: token)
        }
        if let userId {
            try SupportWiring.checkUserId(userId, field: "userId")
            guard try CustomerRepository(store: store).record(ofUser: userId)?.deletedAt == nil else {
                throw SupportError(.customerDeleted, "the customer was deleted")
            }
        }
        if let consent {
            let record = ConsumptionConsent(consented: consent.consented, recordedAt: action.date, recordedBy: action.actor,
                                            reason: action.reason)
            if let userId {
                try facts.setConsent(record, userId: userId)
            } else if let token = consent.appAccountToken {
                try facts.setConsent(record, appAccountToken: token)
            }
            response.consent = record
        }
        if let consumption {
            response.transactionId = consumption.transactionId
            response.consumption = try facts.recordConsumption(
                transactionId: consumption.transactionId, deliveryStatus: consumption.deliveryStatus,
                consumptionPercentage: consumption.consumptionPercentage, at: action.date, by: action.actor, reason: action.reason)
        }
        response.userId = userId
        response.appAccountToken = userId == nil ? consent?.appAccountToken : nil
        if let userId { try audit(userId: userId, response: response, action: action) }
        support.context.log.info("consumption_recorded", ["user": userId ?? "-", "consent": consent.map { String($0.consented) } ?? "-",
                                                          "transaction": consumption?.transactionId ?? "-", "actor": action.actor])
        return Reply(response)
    }

    /// The audit trail's lines, after the records (a rerun writes the same lines once).
    private func audit(userId: String, response: Response, action: SupportAction) throws {
        try CustomerRepository(store: try support.store()).update(userId: userId) { record in
            if let consent = response.consent {
                let type = consent.consented ? "CONSUMPTION_CONSENT_GIVEN" : "CONSUMPTION_CONSENT_WITHDRAWN"
                record.record(HistoryEntry(id: "consumption-consent:\(action.date)", date: action.date, type: type,
                                           source: "support", actor: action.actor, reason: action.reason))
            }
            if let transactionId = response.transactionId {
                record.record(HistoryEntry(id: "consumption:\(transactionId):\(action.date)", date: action.date,
                                           type: "CONSUMPTION_RECORDED", transactionId: transactionId, source: "support",
                                           actor: action.actor, reason: action.reason))
            }
        }
    }
}
