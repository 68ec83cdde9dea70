import FoundationEssentials

/// Takes a notification from Apple: verify everything, then in ONE atomic step store it under
/// its notificationUUID and queue it, and answer fast. Applying it is the worker's job.
///
/// - A duplicate (Apple retries, or a replay from Notification History) changes nothing.
/// - Data for an environment this deployment does not accept is dropped (Apple sometimes
///   sends sandbox notifications to the production URL), and Apple is told all is well.
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

    private let verifier: SignedDataVerifier
    private let store: () throws -> any KeyValueStore

    /// `store` is opened only once a notification has verified: bad input never pays for it.
    public init(verifier: SignedDataVerifier, store: @escaping () throws -> any KeyValueStore) {
        self.verifier = verifier
        self.store = store
    }

    /// Throws VerificationError (bad data, or retryable online-check failure) or StoreError.
    public func receive(signedPayload: String, now: Date, via: String = "webhook") throws -> Receipt {
        let outcome: Result<VerifiedSignedData, VerificationError>
        do {
            outcome = .success(try verifier.verify(signedPayload, as: .notification, now: now))
        } catch {
            outcome = .failure(error)
        }
        let verified: VerifiedSignedData
        switch outcome {
        case .success(let value):
            verified = value
        case .failure(let error) where error.kind == .invalidEnvironment:
            return .droppedEnvironment(environment: Self.declaredEnvironment(signedPayload) ?? "unknown")
        case .failure(let error):
            throw error
        }
        let claims: NotificationClaims
        do {
            claims = try JSONDecoder().decode(NotificationClaims.self, from: Data(verified.payload))
        } catch {
            throw VerificationError(.invalidJWTFormat, "notification without notificationUUID or signedDate")
        }
        let receivedAt = now.millisecondsSince1970
        let record = StoredNotification.encoded(verified, claims: claims, receivedAt: receivedAt, via: via)
        // The job carries the record itself, so the worker gets it with the claim instead of
        // one more round trip to the store; the keyed copy is what deduplication and audit use.
        let job = QueuedJob(id: claims.notificationUUID, payload: record,
                            priority: Self.priority(of: claims.notificationType), maxAttempts: 8)
        let stored: Bool
        do {
            stored = try store().setIfAbsentAndEnqueue(
                StoreKeys.notification(claims.notificationUUID), record, expiresIn: Self.retention,
                job: job, on: StoreKeys.notificationQueue)
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.unavailable, "store could not be opened: \(error)")
        }
        return stored ? .accepted(notificationUUID: claims.notificationUUID, type: claims.notificationType)
                      : .duplicate(notificationUUID: claims.notificationUUID)
    }

    /// Refunds and revocations first: the shorter the time a refunded purchase keeps working,
    /// the less refund abuse pays (the field report's advice).
    public static func priority(of type: String?) -> Int {
        type == "REFUND" || type == "REVOKE" ? 0 : 1
    }

    /// For the log line of a dropped notification: what it claimed, from the (verified) payload.
    private static func declaredEnvironment(_ jws: String) -> String? {
        guard let parsed = try? CompactJWS(parsing: jws),
              let claims = try? JSONDecoder().decode(SignedPayloadClaims.self, from: Data(parsed.payload))
        else { return nil }
        return claims.environment(for: .notification)
    }
}
