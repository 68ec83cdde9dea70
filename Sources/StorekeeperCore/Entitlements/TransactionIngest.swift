import FoundationEssentials

/// A StoreKit 2 signed transaction (and, optionally, its renewal info) that the app's backend
/// hands over right after a purchase, so access does not wait for Apple's notification:
/// verified, linked to the user, applied through the same entitlement logic as notifications.
///
/// One value serves a whole batch: it remembers the entitlements of each user it has answered
/// for, so `active` stays the user's without reading all of them again on every line.
public struct TransactionIngest {
    /// What verification proved: the transaction, and the renewal info of the same subscription.
    public struct Purchase: Sendable {
        public let transaction: JWSTransactionDecodedPayload
        public let renewalInfo: JWSRenewalInfoDecodedPayload?
    }

    /// What one ingested transaction did, as `ingest-transaction` answers it.
    public struct Outcome: Encodable, Sendable, Equatable {
        public var outcome: EntitlementUpdate.Outcome
        /// The user: given by the caller, or found by the transaction's appAccountToken.
        public var userId: String?
        /// Whether the user has any active entitlement now; without a user, whether this
        /// subscription is active.
        public var active: Bool
        /// This transaction's subscription only, as it stands after the event (none when it
        /// grants none, e.g. a consumable): every one of the user's would make a batch quadratic.
        public var entitlements: [Entitlement]
        /// The backend named a user, but the transaction's appAccountToken is another's (it
        /// stays theirs). Not part of the answer: for the log.
        public var appAccountTokenOfAnotherUser = false

        enum CodingKeys: String, CodingKey {
            case outcome, userId, active, entitlements
        }
    }

    /// The request was well-formed but its two signed parts do not belong together.
    public typealias MismatchError = DomainError<MismatchErrorKind>

    public enum MismatchErrorKind: String, ErrorKind {
        /// Answered like any other invalid request.
        case renewalOfAnotherSubscription = "invalid_request"

        public var disposition: ErrorDisposition { .badInput }
    }

    private let verifier: SignedDataVerifier
    /// By user, by original transaction id: read from the store on the user's first
    /// transaction, then kept up to date with each transaction's own record.
    private var entitlementsByUser: [String: [String: Entitlement]] = [:]

    public init(verifier: SignedDataVerifier) {
        self.verifier = verifier
    }

    /// Verifies the transaction and, when given, the renewal info, which must be of the
    /// same subscription. Touches no entitlement.
    public func verify(signedTransaction: String, signedRenewalInfo: String?, now: Date) throws -> Purchase {
        let transaction = try verifier.verifyTransaction(signedTransaction, now: now).payload
        guard let signedRenewalInfo else { return Purchase(transaction: transaction, renewalInfo: nil) }
        let renewal = try verifier.verifyRenewalInfo(signedRenewalInfo, now: now).payload
        guard renewal.originalTransactionId == transaction.originalTransactionId else {
            throw MismatchError(.renewalOfAnotherSubscription, "the renewal info is for another subscription")
        }
        return Purchase(transaction: transaction, renewalInfo: renewal)
    }

    /// Applies a verified purchase. With `userId` the backend vouches for the user: the
    /// transaction's appAccountToken becomes theirs if it was nobody's. Without, the user is
    /// the token's owner, if any.
    public mutating func apply(_ purchase: Purchase, userId: String?, to repository: EntitlementRepository, now: Date) throws -> Outcome {
        let transaction = purchase.transaction
        let event = AppleFact(.ingest(receivedAt: now.millisecondsSince1970), transaction: transaction, renewalInfo: purchase.renewalInfo)

        var user = userId
        var tokenRefused = false
        if let userId, let token = transaction.appAccountToken, !token.isEmpty {
            tokenRefused = try !repository.assign(appAccountToken: token, toUser: userId)
        } else if userId == nil, let token = transaction.appAccountToken {
            user = try repository.user(ofAppAccountToken: token)
        }
        let update = try repository.apply(event, userId: userId)

        let entitlements = update.record.map { [Entitlement($0, now: now)] } ?? []
        var active = entitlements.contains { $0.active }
        if let user {
            var known = try entitlementsByUser[user] ?? Self.entitlements(ofUser: user, in: repository, now: now)
            for entitlement in entitlements { known[entitlement.originalTransactionId] = entitlement }
            entitlementsByUser[user] = known
            active = known.values.contains { $0.active }
        }
        return Outcome(outcome: update.outcome, userId: user, active: active, entitlements: entitlements,
                       appAccountTokenOfAnotherUser: tokenRefused)
    }

    private static func entitlements(ofUser userId: String, in repository: EntitlementRepository, now: Date) throws -> [String: Entitlement] {
        var entitlements: [String: Entitlement] = [:]
        for subscription in try repository.subscriptions(ofUser: userId) {
            if let record = try repository.record(subscription) {
                entitlements[subscription.originalTransactionId] = Entitlement(record, now: now)
            }
        }
        return entitlements
    }
}
