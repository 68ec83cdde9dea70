import FoundationEssentials

/// Takes a notification from Apple: verify everything, then in ONE atomic step store it under
/// its notificationUUID and queue it, and answer fast. Applying it is the worker's job.
///
/// - A duplicate (Apple retries, or a replay from Notification History) changes nothing.
/// - Data for an environment this deployment does not accept is dropped (Apple sometimes
///   sends sandbox notifications to the production URL), and Apple is told all is well.
/// - Only data Apple signed is taken, whatever `APPSTORE_ENVIRONMENT` says: Apple never sends
///   Xcode or LocalTesting data to a server, so unsigned data here is a forgery.
/// - A store that cannot be reached throws a retryable StoreError: the answer is 503 and
///   Apple tries again, so nothing is lost.
public final class NotificationInbox {
    /// Apple's history covers 180 days; a record older than that cannot be replayed anyway.
    public static let retention: Duration = .seconds(180 * 86_400)

    public enum Receipt: Equatable, Sendable {
        /// Stored and queued for the first time.
        case accepted(notificationUUID: String, type: String?)
        /// Seen before: nothing changed.
        case duplicate(notificationUUID: String)
        /// Verified, but for an environment that is not accepted: dropped on purpose.
        case droppedEnvironment(environment: String)
    }

    /// What `receive` did, and what the online checks said about the notification's chain
    /// (a soft-failed check is accepted, and the caller logs it).
    public struct Delivery: Equatable, Sendable {
        public var receipt: Receipt
        public var onlineCheck: RevocationOutcome
    }

    private let verifier: SignedDataVerifier
    private let store: any KeyValueStore

    /// Nothing is written to `store` for a notification before it has verified. Verification
    /// itself may open the store, to read (and remember) proven chains in the chain cache,
    /// which takes a store failure for a cache miss: so a store outage answers 503 only once
    /// the notification is known to be Apple's.
    public init(verifier: SignedDataVerifier, store: any KeyValueStore) {
        self.verifier = verifier
        self.store = store
    }

    /// Throws VerificationError (bad data, or retryable online-check failure) or StoreError.
    public func receive(signedPayload: String, now: Date, via: NotificationArrival = .webhook) throws -> Delivery {
        let outcome: Result<VerifiedNotification, VerificationError>
        do {
            // The envelope's model only: the record keeps the verified JSON of every nested
            // payload, which the worker reads into the models when it applies them.
            outcome = .success(try verifier.verifyNotification(signedPayload, now: now, unsignedData: .refused, models: .envelope))
        } catch {
            outcome = .failure(error)
        }
        let verified: VerifiedNotification
        switch outcome {
        case .success(let value):
            verified = value
        case .failure(let error):
            // Only a notification that is whole and simply not for this deployment is
            // dropped; one whose parts contradict each other is refused.
            guard let environment = error.unacceptedEnvironment else { throw error }
            return Delivery(receipt: .droppedEnvironment(environment: environment), onlineCheck: .notChecked)
        }
        let record = StoredNotification.encoded(verified, receivedAt: now.millisecondsSince1970, via: via)
        // The job carries the record itself, so the worker gets it with the claim instead of
        // one more round trip to the store; the keyed copy is what deduplication and audit use.
        let job = QueuedJob(id: verified.notificationUUID, payload: record,
                            priority: Self.priority(of: verified.payload.notificationType), maxAttempts: 8)
        let stored = try store.setIfAbsentAndEnqueue(
            StoreKeys.notification(verified.notificationUUID), record, expiresIn: Self.retention,
            job: job, on: StoreKeys.notificationQueue)
        let receipt: Receipt = stored ? .accepted(notificationUUID: verified.notificationUUID, type: verified.payload.rawNotificationType)
                                      : .duplicate(notificationUUID: verified.notificationUUID)
        return Delivery(receipt: receipt, onlineCheck: verified.revocation)
    }

    /// Refunds and revocations first: the shorter the time a refunded purchase keeps working,
    /// the less refund abuse pays (the field report's advice).
    public static func priority(of type: NotificationTypeV2?) -> Int {
        type == .refund || type == .revoke ? 0 : 1
    }
}
