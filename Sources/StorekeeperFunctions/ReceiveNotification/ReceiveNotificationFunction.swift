import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// `receive-notification`: Apple's App Store Server Notifications V2 endpoint. Verifies all
/// three JWS, checks app and environment, stores and queues the notification in one atomic
/// step, and answers 200 fast. Applying it is `process-notifications`' job.
///
/// https://developer.apple.com/documentation/appstoreservernotifications/responding-to-app-store-server-notifications
public final class ReceiveNotificationFunction: TypedFunction {
    public struct Request: RequestBody {
        public enum CodingKeys: String, CodingKey, CaseIterable {
            case signedPayload
        }
        var signedPayload: String
    }

    public struct Response: Encodable {
        enum Status: String, Encodable {
            case accepted, duplicate, ignored
        }
        var status: Status
        var notificationUUID: String?
        /// Why a verified notification was ignored.
        var reason: String?
    }

    public static let descriptor = FunctionDescriptor(
        name: "receive-notification",
        route: "/appstore/notifications",
        method: "POST",
        visibility: .public,
        summary: "Receive App Store Server Notifications V2: verify, store and queue once, answer 200 fast.",
        request: """
            {"signedPayload": "<compact JWS>"}   (exactly what Apple POSTs)
            """,
        response: """
            200 {"status": "accepted" | "duplicate" | "ignored", "notificationUUID": "..."}
                 accepted: stored and queued; duplicate: seen before, nothing changed;
                 ignored: verified but for an environment this server does not accept (logged)
            400 {"error": {"code": "INVALID_JWT_FORMAT" | "INVALID_CERTIFICATE" | "VERIFICATION_FAILURE" |
                           "INVALID_APP_IDENTIFIER" | ..., "message": "..."}}   exit 65
                 Only Apple-signed data is taken: Xcode and LocalTesting data (unsigned) is refused
                 whatever APPSTORE_ENVIRONMENT lists, since Apple never sends it to a server.
            503 {"error": {"code": "store_unavailable" | "RETRYABLE_VERIFICATION_FAILURE", ...}}   exit 75:
                 Apple retries, nothing is lost; store_unavailable for any store failure (down,
                 full, read-only, damaged), with what failed in the log only
            500 {"error": {"code": "configuration_error", ...}}   exit 78: STORE_URL is malformed or
                 the store refuses its credentials (Apple retries this too)
            """,
        variables: AppStoreSettings.variables
    )

    private let inbox: NotificationInbox
    private let context: FunctionContext

    public init(context: FunctionContext) throws {
        let settings = try AppStoreSettings(environment: context.environment)
        inbox = settings.makeNotificationInbox(adapters: context.adapters)
        self.context = context
    }

    public func handle(_ request: Request, call: FunctionRequest) throws -> Reply<Response> {
        let delivery: NotificationInbox.Delivery
        do {
            delivery = try inbox.receive(signedPayload: request.signedPayload, now: context.clock.now())
        } catch let error as VerificationError {
            context.log.warning("notification_rejected", ["code": error.code, "reason": error.reason])
            throw error
        } catch let error as StoreError {
            context.log.error("notification_not_stored", ["code": error.code, "reason": error.reason])
            throw error
        }
        context.log.onlineCheck(delivery.onlineCheck)
        switch delivery.receipt {
        case .accepted(let uuid, let type):
            context.log.info("notification_queued", ["notificationUUID": uuid, "type": type ?? "-"])
            return Reply(Response(status: .accepted, notificationUUID: uuid))
        case .duplicate(let uuid):
            context.log.info("notification_duplicate", ["notificationUUID": uuid])
            return Reply(Response(status: .duplicate, notificationUUID: uuid))
        case .droppedEnvironment(let environment):
            // Apple sometimes sends sandbox notifications to the production URL: acknowledge
            // so it stops retrying, and keep them out of production state.
            context.log.warning("notification_environment_not_accepted", ["environment": environment])
            return Reply(Response(status: .ignored, reason: "environment \(environment) is not accepted here"))
        }
    }
}
