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
        var data: [String: Any] = ["transactionInfo": try Self.object(transaction)]
        if let renewal { data["renewalInfo"] = try Self.object(renewal) }
        return ["sign": "notification", "payload": payload(data: data)]
    }

    /// The notification's signedPayload, signed in process with the committed PKI the way
    /// `simulate-store` signs it, for tests that hand it straight to the core.
    public func signedPayload() throws -> String {
        var data: [String: Any] = ["signedTransactionInfo": try TestPKI.sign(encoding: transaction)]
        if let renewal { data["signedRenewalInfo"] = try TestPKI.sign(encoding: renewal) }
        return try TestPKI.sign(payload(data: data))
    }

    /// The decoded notification around `data` (its transaction and renewal, signed or not).
    private func payload(data: [String: Any]) -> [String: Any] {
        let data = data.merging(["bundleId": bundleId, "environment": environment, "appAppleId": TestPKI.appAppleId]) { own, _ in own }
        var payload: [String: Any] = [
            "notificationType": type, "notificationUUID": uuid, "signedDate": signedDate, "version": "2.0", "data": data,
        ]
        if let subtype { payload["subtype"] = subtype }
        return payload
    }

    /// What the entitlement engine is given for this notification once it is verified.
    public var event: AppleFact {
        AppleFact(.notification(notificationUUID: uuid, signedDate: signedDate, type: type, subtype: subtype, bundleId: bundleId),
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
