import Foundation
import StorekeeperCore

/// One notification as Apple would send it, before signing: the decoded fields, with the
/// transaction and renewal info as Storekeeper's own models (encoded in Apple's field names).
/// FunctionTests' `simulate-store` signs them with the fixture PKI; `event` is what the worker should apply.
public struct NotificationSpec: Sendable {
    public var uuid: String
    public var type: String
    public var subtype: String?
    public var signedDate: Int64
    public var environment: String
    public var bundleId: String
    public var transaction: JWSTransactionDecodedPayload
    public var renewal: JWSRenewalInfoDecodedPayload?

    public init(uuid: String, type: String, subtype: String? = nil, signedDate: Int64, environment: String = "Sandbox",
                bundleId: String = TestPKI.bundleId, transaction: JWSTransactionDecodedPayload,
                renewal: JWSRenewalInfoDecodedPayload? = nil) {
        self.uuid = uuid
        self.type = type
        self.subtype = subtype
        self.signedDate = signedDate
        self.environment = environment
        self.bundleId = bundleId
        self.transaction = transaction
        self.renewal = renewal
    }

    /// The request line for `simulate-store`.
    public func signingRequest() throws -> [String: Any] {
        var data: [String: Any] = [
            "bundleId": bundleId, "environment": environment, "appAppleId": TestPKI.appAppleId,
            "transactionInfo": try Self.object(transaction),
        ]
        if let renewal { data["renewalInfo"] = try Self.object(renewal) }
        var payload: [String: Any] = [
            "notificationType": type, "notificationUUID": uuid, "signedDate": signedDate, "version": "2.0", "data": data,
        ]
        if let subtype { payload["subtype"] = subtype }
        return ["sign": "notification", "payload": payload]
    }

    /// What the entitlement engine is given for this notification once it is verified.
    public var event: EntitlementEvent {
        EntitlementEvent(id: uuid, source: .notification, type: type, subtype: subtype, signedDate: signedDate,
                         transaction: transaction, renewalInfo: renewal)
    }

    private static func object(_ value: some Encodable) throws -> Any {
        try JSONSerialization.jsonObject(with: JSONEncoder().encode(value))
    }

    /// A UUID that names case, subscription and step, so a failure message says which one.
    public static func uuid(_ group: Int, _ index: Int) -> String {
        String(format: "%08x-0000-4000-8000-%012x", group, index)
    }
}
