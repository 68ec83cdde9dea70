import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// `siwa-notification`: Apple's server-to-server account notifications. Verifies the JWT
/// against Apple's keys and the configured client ids, decodes its `events`, acts once per
/// `jti`: relay preference on email-enabled/-disabled, tokens and sessions dropped on
/// consent-revoked, the account deleted on account-delete(d). A replayed old notification
/// does nothing: older than 30 days it is refused (`stale_event`), and no event acts on an
/// account, session or email setting newer than its `event_time` (`superseded`).
public final class SiwaNotificationFunction: TypedFunction {
    public struct Request: RequestBody {
        public enum CodingKeys: String, CodingKey, CaseIterable {
            case payload
        }
        var payload: String
    }

    public struct Response: Encodable {
        var status: String
        var type: String
        var eventTime: Int64?
    }

    static let parts: [SignInWithAppleSettings.Part] = [.identity]

    public static let descriptor = FunctionDescriptor(
        name: "siwa-notification",
        route: "/auth/apple/notifications",
        method: "POST",
        visibility: .public,
        summary: "Receive Apple's Sign in with Apple account notifications and act on them once.",
        request: """
            {"payload": "<JWT signed by Apple; claim events is a JSON string {type, sub, email?, is_private_email?, event_time}>"}
            """,
        response: """
            {"status": "processed" | "duplicate" | "ignored" | "unknown_user" | "stale_event" | "superseded",
             "type": "email-disabled" | "email-enabled" | "consent-revoked" | "account-delete" | "account-deleted" | ...,
             "eventTime": <ms>}
              stale_event: event_time (or, without one, iat) is more than 30 days old: refused, nothing done,
                answered 200 so Apple does not send it again (a retry would be no younger)
              superseded: the account was created after the event, or a later email event applied: nothing done
              consent-revoked ends only the sessions and refresh token from before event_time;
              email-enabled/-disabled apply newest event_time first
            refused (bad signature, issuer, audience...): {"error": {"code", "message"}} 400; store or Apple's keys down: 503
            """,
        variables: SignInWithAppleSettings.variables(parts)
    )

    private let context: FunctionContext
    private let verifier: IdentityTokenVerifier

    public init(context: FunctionContext) throws {
        self.context = context
        verifier = try SignInWithAppleSettings(environment: context.environment, parts: Self.parts).verifier(adapters: context.adapters)
    }

    public func handle(_ request: Request, call: FunctionRequest) throws -> Reply<Response> {
        let now = context.clock.now()
        let notification = try verifier.verifyNotification(request.payload, now: now)
        let (outcome, userId) = try AccountEventProcessor(store: try context.adapters.store()).process(notification, now: now)
        let eventTime = AccountEventProcessor.eventTime(of: notification)
        var fields: [String: any LogFieldValue] = ["type": notification.event.type, "outcome": outcome.rawValue, "event_time": eventTime]
        if let userId { fields["user"] = userId }
        if outcome == .staleEvent {
            // Signed by Apple but old: a replay, or a delivery stuck for a month. Worth a look either way.
            context.log.warning("account_notification_refused", fields)
        } else {
            context.log.info("account_notification", fields)
        }
        return Reply(Response(status: outcome.rawValue, type: notification.event.type, eventTime: notification.event.eventTime))
    }
}
