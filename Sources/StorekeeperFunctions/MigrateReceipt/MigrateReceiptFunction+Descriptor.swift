import FunctionRuntime
import StorekeeperCore

extension MigrateReceiptFunction {
    public static let descriptor = FunctionDescriptor(
        name: "migrate-receipt",
        route: "/appstore/receipts",
        method: "POST",
        visibility: .public,
        summary: "Read and verify a legacy app receipt (PKCS#7) from an old app version, move its purchases to the App Store Server API, optionally compare with the legacy verifyReceipt.",
        request: """
            {"receiptData": "<base64 app receipt>", "bundleId": "<optional>", "dryRun": false, "legacyCheck": false,
             "userId": "<optional>", "appAccountToken": "<optional UUID>", "sessionToken": "<optional>"}
              bundleId: the app the receipt must be of (invalid_request when the catalog has no such
              app, INVALID_APP_IDENTIFIER for another app's receipt); without it a receipt of any of
              the catalog's apps is taken, and Apple is asked for the app the receipt names.
              dryRun: answer what the receipt holds; nothing is asked of Apple, nothing is stored
              (no API key needed).
              Otherwise, for each original transaction id: Get Transaction History (every page) and
              Get All Subscription Statuses, every signed answer verified and applied to the
              entitlement (a rerun changes nothing), linked to userId. With an appAccountToken (the
              request's, which becomes the user's, or the user's Sign in with Apple one), Set App
              Account Token for purchases that carry none. Over HTTP, userId and appAccountToken
              need Authorization: Bearer $STOREKEEPER_ADMIN_TOKEN (401 otherwise): the route is public.
              An app speaks for its own user with sessionToken (the session siwa-native or
              siwa-callback opened): the purchases go to that session's user (401 invalid_session
              when it is not open).
              Anonymous (over HTTP without the bearer token and without sessionToken): when every
              original transaction id of the receipt was migrated in the last 24 h, the answer comes
              from the store and nothing is asked of Apple ("fromStore": true): only the receipt's own
              ids, their product and status now, no user (linkedToUser absent), appleRequests 0.
              Every call to the App Store Server API goes through a token bucket in the store, shared
              by every process and apart from reconcile's (MIGRATE_REQUESTS_PER_SECOND, whoever calls:
              the route is public). A request whose first call finds it empty is refused, nothing
              asked: 429 rate_limited with Retry-After (whole seconds), exit 75; its later calls take
              their tokens on credit (the next request waits that off). Apple's Retry-After holds
              the bucket back too.
              legacyCheck: also ask verifyReceipt (production, then sandbox on 21007), infer each
              subscription's legacy status, record both tracks (appstore:migration:<id>) and report
              disagreements.
            """,
        response: """
            {"dryRun": true, "verified": true | false, "environment": "Sandbox", "chainVerified": true,
             "error": {"code", "message"} (when not verified),
             "receipt": {"receiptType", "bundleId", "appVersion", "originalAppVersion", "creationDate" (ms),
                         "expirationDate", "inAppPurchases": [{"quantity", "productId", "transactionId",
                         "originalTransactionId", "purchaseDate", "originalPurchaseDate", "expiresDate",
                         "cancellationDate", "webOrderLineItemId", "isTrialPeriod", "isInIntroOfferPeriod",
                         "promotionalOfferId"}]},
             "originalTransactionIds": [...]}
            not a dry run: the receipt must verify (else {"verified": false, "error"} exit 65, or 75 when
            retryable), then
             "migration": {"performed": true, "fromStore": false, "outcome": {"appleRequests": n, "subscriptions": [
               {"originalTransactionId", "productId", "status" (active | grace | billing_retry | expired |
                refunded | revoked | lifetime; absent: no entitlement), "statusBefore", "inReceipt",
                "eventsApplied", "linkedToUser", "appAccountTokenSet", "failure" ("not_found" | "invalid_payload" | code)}]}}
               ("fromStore": true: an anonymous rerun answered from the store, see above;
                {"performed": false, "reason"} for an Xcode receipt),
             with legacyCheck "legacy": {"status", "statusName", "environment", "redirectedToSandbox",
               "subscriptions": [{"originalTransactionId", "productId", "state", "expiresDate",
               "gracePeriodExpiresDate", "expirationIntent", "autoRenew"}]}
               and "disagreements": [{"originalTransactionId", "legacyStatus", "newStatus"}].
            errors: INVALID_RECEIPT_FORMAT, INVALID_CERTIFICATE, VERIFICATION_FAILURE, INVALID_APP_IDENTIFIER,
            INVALID_ENVIRONMENT (exit 65); RETRYABLE_VERIFICATION_FAILURE, verify_receipt_unavailable, Apple 5xx
            or unreachable (Apple's error name, exit 75: what was applied stays, a rerun finishes);
            verify_receipt_rejected (exit 65); Apple refusing the API key or the shared secret (21004) (exit 78);
            rate_limited (429, Retry-After, exit 75): the shared bucket has no token now; nothing was asked
            (or, when a migration under way used up its credit or Apple asked to hold back, what was
            applied stays and a rerun finishes).
            """,
        variables: ReceiptSettings.variables + [
            .optional(StorekeeperSettings.apiKeyId, "required unless dryRun (exit 78 without it)"),
            .optional(StorekeeperSettings.apiIssuerId, "required unless dryRun (exit 78 without it)"),
            .optional(StorekeeperSettings.apiPrivateKey, "required unless dryRun (exit 78 without it)"),
            .declared(StorekeeperSettings.apiBaseURL), .declared(StorekeeperSettings.apiSandboxBaseURL),
            .declared(StorekeeperSettings.apiTimeout),
            .optional(StorekeeperSettings.rootCertificates, "the roots of Apple's signed answers; required unless dryRun"),
            .declared(StorekeeperSettings.appAppleId), .declared(StorekeeperSettings.onlineChecks),
            .declared(RuntimeSettings.storeURL, "entitlements, links and the migration audit live there"),
            .declared(RuntimeSettings.adminToken, "your backend sends it over HTTP with userId or appAccountToken; without it those fields are refused over HTTP (401)"),
            .declared(StorekeeperSettings.migrateRate),
        ]
    )
}
