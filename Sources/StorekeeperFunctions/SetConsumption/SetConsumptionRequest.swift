import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// set-consumption's request: a customer's consent (by `userId` or `appAccountToken`), and/or
/// a transaction's delivery status and consumption.
public struct SetConsumptionRequest: RequestBody {
    public enum CodingKeys: String, CodingKey, CaseIterable {
        case userId, appAccountToken, customerConsented, transactionId, deliveryStatus, consumptionPercentage, reason
    }
    var userId: String?
    var appAccountToken: String?
    var customerConsented: Bool?
    var transactionId: String?
    var deliveryStatus: String?
    /// nil when absent; `.failure` when present but not a whole number.
    var consumptionPercentage: Result<Int64, ConsumptionError>?
    var reason: String?

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        userId = try container.decodeIfPresent(String.self, forKey: .userId)
        appAccountToken = try container.decodeIfPresent(String.self, forKey: .appAccountToken)
        customerConsented = try container.decodeIfPresent(Bool.self, forKey: .customerConsented)
        transactionId = try container.decodeIfPresent(String.self, forKey: .transactionId)
        deliveryStatus = try container.decodeIfPresent(String.self, forKey: .deliveryStatus)
        reason = try container.decodeIfPresent(String.self, forKey: .reason)
        if container.contains(.consumptionPercentage), try !container.decodeNil(forKey: .consumptionPercentage) {
            if let number = try? container.decode(Int64.self, forKey: .consumptionPercentage) {
                consumptionPercentage = .success(number)
            } else {
                consumptionPercentage = .failure(Self.badPercentage)
            }
        }
    }

    static let badPercentage = ConsumptionError(.invalidConsumptionPercentage,
                                                "consumptionPercentage must be a whole number of milliunits from 0 to 100000")

    /// What to record about the customer: whose consent, and the decision; nil when not asked.
    func consentSubject() throws -> (userId: String?, appAccountToken: String?, consented: Bool)? {
        guard let consented = customerConsented else {
            if userId != nil || appAccountToken != nil, transactionId == nil {
                throw FunctionError.badInput(message: "customerConsented (true or false) says what to record for the customer")
            }
            return nil
        }
        switch (userId, appAccountToken) {
        case (let userId?, nil):
            try SupportWiring.checkUserId(userId, field: "userId")
            return (userId, nil, consented)
        case (nil, let token?):
            guard let uuid = UUID(uuidString: token) else { throw FunctionError.badInput(message: "appAccountToken must be a UUID") }
            return (nil, uuid.uuidString.lowercased(), consented)
        default:
            throw FunctionError.badInput(message: "customerConsented needs exactly one of userId and appAccountToken: whose consent")
        }
    }

    /// What to record about the transaction; nil when not asked.
    func consumptionSubject() throws -> (transactionId: String, deliveryStatus: String?, consumptionPercentage: Int32?)? {
        guard let transactionId else {
            if deliveryStatus != nil || consumptionPercentage != nil {
                throw FunctionError.badInput(message: "deliveryStatus and consumptionPercentage are about a transaction: give transactionId")
            }
            return nil
        }
        guard !transactionId.isEmpty, transactionId.utf8.count <= 64, transactionId.utf8.allSatisfy({ (48...57).contains($0) }) else {
            throw FunctionError.badInput(message: "transactionId must be Apple's transaction id: 1 to 64 digits")
        }
        if let deliveryStatus, DeliveryStatus(rawValue: deliveryStatus) == nil {
            throw ConsumptionError(.invalidDeliveryStatus, "deliveryStatus must be one of \(DeliveryStatus.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        var percentage: Int32?
        if let consumptionPercentage {
            let number = try consumptionPercentage.get()
            guard (0...100_000).contains(number) else { throw Self.badPercentage }
            percentage = Int32(number)
        }
        if let deliveryStatus, deliveryStatus != DeliveryStatus.delivered.rawValue, let percentage, percentage != 0 {
            throw ConsumptionError(.invalidConsumptionPercentage, "an undelivered purchase was not consumed: consumptionPercentage must be 0")
        }
        guard deliveryStatus != nil || percentage != nil else {
            throw FunctionError.badInput(message: "with transactionId, give deliveryStatus, consumptionPercentage or both")
        }
        return (transactionId, deliveryStatus, percentage)
    }

    /// Optional here (a backend recording deliveries has no ticket to name), at most 1000 characters.
    func checkedReason() throws -> String? {
        guard let reason else { return nil }
        guard reason.count <= 1000 else { throw FunctionError.badInput(message: "reason is longer than 1000 characters") }
        return reason.allSatisfy(\.isWhitespace) ? nil : reason
    }
}
