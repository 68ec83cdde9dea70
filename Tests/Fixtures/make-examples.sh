#!/usr/bin/env bash
# Regenerates the golden examples of the functions whose requests carry signed data
# (functions/*/examples/*.json), by signing fixed payloads with the committed test PKI through
# simulate-store. Run it after `make pki`; the tests then compare the binaries' answers with
# these files. Signed dates are fixed (2026-06-01), so the examples never expire.
# usage: BIN=.build/debug Tests/Fixtures/make-examples.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${BIN:=.build/debug}"
export SIMULATE_PKI_DIR=Tests/Fixtures/pki
out=functions/verify-signed-data/examples
mkdir -p "$out"

signed_ms=1780272000000           # 2026-06-01T00:00:00Z
expires_ms=$((signed_ms + 2592000000))
env_json='{"APPSTORE_ROOT_CERTS": "Tests/Fixtures/pki/root.pem", "APPSTORE_BUNDLE_ID": "com.example.storekeeper", "APPSTORE_APP_APPLE_ID": "1234567890", "APPSTORE_ENVIRONMENT": "Production,Sandbox", "APPSTORE_ONLINE_CHECKS": "off"}'

transaction() { # $1 bundle id
  jq -cn --arg b "$1" --argjson s "$signed_ms" --argjson e "$expires_ms" '{
    transactionId: "2000000001", originalTransactionId: "2000000001", webOrderLineItemId: "2000000000000001",
    bundleId: $b, productId: "com.example.pro.monthly", subscriptionGroupIdentifier: "21000001",
    purchaseDate: ($s - 1000), originalPurchaseDate: ($s - 1000), expiresDate: $e, quantity: 1,
    type: "Auto-Renewable Subscription", inAppOwnershipType: "PURCHASED", signedDate: $s,
    environment: "Sandbox", transactionReason: "PURCHASE", storefront: "USA", storefrontId: "143441",
    price: 4990, currency: "USD", appAccountToken: "7e3fb20b-4cdb-47cc-936d-99d65f608138"}'
}
renewal() {
  jq -cn --argjson s "$signed_ms" --argjson e "$expires_ms" '{
    originalTransactionId: "2000000001", autoRenewProductId: "com.example.pro.monthly",
    productId: "com.example.pro.monthly", autoRenewStatus: 1, signedDate: $s, environment: "Sandbox",
    recentSubscriptionStartDate: ($s - 1000), renewalDate: $e}'
}
notification() { # $1 bundle id, $2 environment
  jq -cn --arg b "$1" --arg env "$2" --argjson s "$signed_ms" --argjson t "$(transaction "$1")" --argjson r "$(renewal)" '{
    notificationType: "SUBSCRIBED", subtype: "INITIAL_BUY", notificationUUID: "f1b0b3e4-5a6c-4d2e-9f10-000000000001",
    version: "2.0", signedDate: $s,
    data: {appAppleId: 1234567890, bundleId: $b, bundleVersion: "1", environment: $env, status: 1,
           transactionInfo: $t, renewalInfo: $r}}'
}
sign() { # $1 type, $2 payload, $3 leaf stem (optional)
  jq -cn --arg t "$1" --argjson p "$2" --arg leaf "${3:-leaf}" '{sign: $t, payload: $p, chain: {leaf: $leaf}}' \
    | "$BIN/simulate-store" 2>/dev/null | jq -r .signedData
}
decoded() { # the payload part of a JWS, decoded
  local part; part=$(cut -d. -f2 <<<"$1" | tr '_-' '/+')
  while [ $(( ${#part} % 4 )) -ne 0 ]; do part="$part="; done
  base64 -d <<<"$part"
}
example() { # $1 file, $2 description, $3 request, $4 response, $5 exit code, [$6 environment]
  jq -n --arg d "$2" --argjson env "${6:-$env_json}" --argjson req "$3" --argjson res "$4" --argjson code "$5" \
    '{description: $d, environment: $env, request: $req, response: $res, exitCode: $code}' > "$out/$1"
}
rejected() { jq -cn --arg c "$1" --arg m "$2" '{valid: false, error: {code: $c, message: $m}}'; }

note=$(sign notification "$(notification com.example.storekeeper Sandbox)")
note_payload=$(decoded "$note")
txn_jws=$(jq -r .data.signedTransactionInfo <<<"$note_payload")
ren_jws=$(jq -r .data.signedRenewalInfo <<<"$note_payload")
example notification-valid.json "A SUBSCRIBED/INITIAL_BUY notification: verified, with its nested transaction and renewal info verified and decoded." \
  "$(jq -cn --arg s "$note" '{signedData: $s}')" \
  "$(jq -cn --argjson p "$note_payload" --argjson t "$(decoded "$txn_jws")" --argjson r "$(decoded "$ren_jws")" \
      '{valid: true, type: "notification", environment: "Sandbox", payload: $p, transactionInfo: $t, renewalInfo: $r}')" 0

example transaction-valid.json "A StoreKit 2 signed transaction, type given." \
  "$(jq -cn --arg s "$txn_jws" '{signedData: $s, type: "transaction"}')" \
  "$(jq -cn --argjson p "$(decoded "$txn_jws")" '{valid: true, type: "transaction", environment: "Sandbox", payload: $p}')" 0

example renewal-info-inferred.json "Renewal info, type inferred from the payload." \
  "$(jq -cn --arg s "$ren_jws" '{signedData: $s}')" \
  "$(jq -cn --argjson p "$(decoded "$ren_jws")" '{valid: true, type: "renewalInfo", environment: "Sandbox", payload: $p}')" 0

other=$(sign transaction "$(transaction com.example.storekeeper | jq -c '.productId = "com.example.pro.yearly"')")
tampered="$(cut -d. -f1 <<<"$txn_jws").$(cut -d. -f2 <<<"$other").$(cut -d. -f3 <<<"$txn_jws")"
example tampered-payload.json "A transaction whose payload was swapped: the signature no longer matches." \
  "$(jq -cn --arg s "$tampered" '{signedData: $s}')" \
  "$(rejected VERIFICATION_FAILURE "signature does not match the leaf certificate")" 65

example other-app.json "Signed data for another app's bundle id." \
  "$(jq -cn --arg s "$(sign transaction "$(transaction com.example.other)")" '{signedData: $s}')" \
  "$(rejected INVALID_APP_IDENTIFIER "bundle id com.example.other is not com.example.storekeeper")" 65

example expired-leaf.json "Signed with a leaf certificate that expired before the data's signedDate." \
  "$(jq -cn --arg s "$(sign transaction "$(transaction com.example.storekeeper)" leaf-expired)" '{signedData: $s}')" \
  "$(rejected INVALID_CERTIFICATE "certificate chain rejected at depth 0: certificate has expired (X509_V_ERR 10)")" 65

example wrong-root.json "Signed by a look-alike chain under another root." \
  "$(jq -cn --arg s "$(jq -cn --argjson p "$(transaction com.example.storekeeper)" '{sign: "transaction", payload: $p, chain: {leaf: "leaf-other-root", intermediate: "other-intermediate", root: "other-root"}}' | "$BIN/simulate-store" 2>/dev/null | jq -r .signedData)" '{signedData: $s}')" \
  "$(rejected INVALID_CERTIFICATE "certificate chain rejected at depth 1: unable to get local issuer certificate (X509_V_ERR 20)")" 65

example environment-not-accepted.json "A Sandbox notification on a server that accepts only Production." \
  "$(jq -cn --arg s "$note" '{signedData: $s}')" \
  "$(rejected INVALID_ENVIRONMENT "environment Sandbox is not accepted")" 65 \
  "$(jq -c '.APPSTORE_ENVIRONMENT = "Production"' <<<"$env_json")"

example not-a-jws.json "Not a compact JWS." \
  '{"signedData": "hello.world"}' \
  "$(rejected INVALID_JWT_FORMAT "a compact JWS has three parts separated by dots")" 65

example unknown-field.json "A request with a field the function does not know is refused, not ignored." \
  '{"signedData": "a.b.c", "signedDate": 1}' \
  '{"error": {"code": "unknown_field", "message": "<<any>>"}}' 65

example missing-configuration.json "Without APPSTORE_BUNDLE_ID or STOREKEEPER_CATALOG the function refuses to start: exit 78, naming both." \
  '{"signedData": "a.b.c"}' \
  '{"error": {"code": "configuration_error", "message": "APPSTORE_BUNDLE_ID is not set (nor STOREKEEPER_CATALOG)"}}' 78 \
  '{"APPSTORE_ROOT_CERTS": "Tests/Fixtures/pki/root.pem"}'

# receive-notification: the same notification twice in one batch: stored once.
rn=functions/receive-notification/examples
mkdir -p "$rn"
jq -n --arg s "$note" --argjson env "$env_json" '{
  description: "Apple delivers a notification, then retries it: accepted once, the retry is a duplicate (NDJSON: one answer a line).",
  environment: $env,
  stdin: ([{signedPayload: $s}, {signedPayload: $s}] | map(tojson) | join("\n")),
  responseLines: [{status: "accepted", notificationUUID: "f1b0b3e4-5a6c-4d2e-9f10-000000000001"},
                  {status: "duplicate", notificationUUID: "f1b0b3e4-5a6c-4d2e-9f10-000000000001"}],
  exitCode: 0}' > "$rn/accepted-then-duplicate.json"
# A notification whose payload was changed after signing (its UUID): a notification still,
# so the refusal is the signature's, not the shape's.
b64url() { base64 -w0 | tr '+/' '-_' | tr -d '='; }
tampered_note="$(cut -d. -f1 <<<"$note").$(jq -c '.notificationUUID = "00000000-0000-4000-8000-000000000000"' <<<"$note_payload" | b64url).$(cut -d. -f3 <<<"$note")"
jq -n --arg s "$tampered_note" --argjson env "$env_json" '{
  description: "A notification whose signature does not verify is refused with 400 (exit 65): nothing is stored.",
  environment: $env, request: {signedPayload: $s},
  response: {error: {code: "VERIFICATION_FAILURE", message: "signature does not match the leaf certificate"}}, exitCode: 65}' > "$rn/bad-signature.json"
jq -n --arg s "$note" --argjson env "$(jq -c '.APPSTORE_ENVIRONMENT = "Production"' <<<"$env_json")" '{
  description: "A Sandbox notification sent to a production-only server: acknowledged and dropped (Apple must stop retrying).",
  environment: $env, request: {signedPayload: $s},
  response: {status: "ignored", reason: "environment Sandbox is not accepted here"}, exitCode: 0}' > "$rn/other-environment-dropped.json"

# process-notifications: nothing queued.
pn=functions/process-notifications/examples
mkdir -p "$pn"
jq -n '{description: "An empty queue: nothing to do.", environment: {}, request: {},
  response: {applied: 0, stale: 0, duplicate: 0, ignored: 0, failed: 0, deadLettered: 0, remaining: 0}, exitCode: 0}' > "$pn/empty-queue.json"
jq -n '{description: "A budget out of range is a bad request.", environment: {}, request: {budgetSeconds: 0},
  response: {error: {code: "invalid_request", message: "budgetSeconds must be between 0 and 3600"}}, exitCode: 65}' > "$pn/bad-budget.json"

# get-entitlements: unknown user, and an ambiguous request.
ge=functions/get-entitlements/examples
mkdir -p "$ge"
jq -n '{description: "A user Storekeeper has never seen has no entitlements (not an error).", environment: {},
  request: {userId: "user-without-purchases"}, response: {userId: "user-without-purchases", active: false, entitlements: []}, exitCode: 0}' > "$ge/unknown-user.json"
jq -n '{description: "Exactly one key is needed.", environment: {}, request: {userId: "u", originalTransactionId: "1"},
  response: {error: {code: "invalid_request", message: "give exactly one of userId, appAccountToken, originalTransactionId"}}, exitCode: 65}' > "$ge/two-keys.json"

# ingest-transaction: the app's backend passes a purchase on; the clock is pinned so "active" is stable.
it=functions/ingest-transaction/examples
mkdir -p "$it"
jq -n --arg s "$txn_jws" --argjson env "$(jq -c '. + {STOREKEEPER_NOW: "1780272000"}' <<<"$env_json")" \
      --argjson e "$expires_ms" --argjson sd "$signed_ms" '{
  description: "A fresh StoreKit 2 purchase for user u-42: verified, linked, applied; the user is entitled at once.",
  environment: $env, request: {jwsRepresentation: $s, userId: "u-42"},
  response: {outcome: "applied", userId: "u-42", active: true, entitlements: [{
    bundleId: "com.example.storekeeper", originalTransactionId: "2000000001", productId: "com.example.pro.monthly", productType: "Auto-Renewable Subscription",
    status: "active", active: true, expiresDate: $e, environment: "Sandbox", ownership: "PURCHASED",
    appAccountToken: "7e3fb20b-4cdb-47cc-936d-99d65f608138", latestTransactionId: "2000000001",
    lastEvent: {id: ("ingest:2000000001:" + ($sd | tostring)), source: "ingest", signedDate: $sd},
    revokedTransactionIds: []}]},
  exitCode: 0}' > "$it/purchase.json"

# simulate-store: a signature is random, so only its shape is fixed.
sim=functions/simulate-store/examples
mkdir -p "$sim"
jq -n --argjson p "$(transaction com.example.storekeeper)" '{
  description: "Sign a transaction with the test PKI; the answer is a compact JWS (random signature).",
  environment: {SIMULATE_PKI_DIR: "Tests/Fixtures/pki"},
  request: {sign: "transaction", payload: $p}, response: {signedData: "<<any>>"}, exitCode: 0}' > "$sim/sign-transaction.json"
jq -n '{
  description: "An unknown kind of signed data is a bad request.",
  environment: {SIMULATE_PKI_DIR: "Tests/Fixtures/pki"},
  request: {sign: "receipt", payload: {}}, response: {error: {code: "invalid_request", message: "sign must be one of notification, transaction, renewalInfo, appTransaction, realtimeRequest"}}, exitCode: 65}' > "$sim/unknown-kind.json"
echo "examples written to $out and $sim"

# retention-message: Apple's realtime requests (Tests/Fixtures/retention).
Tests/Fixtures/retention/make-retention-examples.sh

# migrate-receipt: from the test receipts (Tests/Fixtures/receipts).
Tests/Fixtures/receipts/make-receipt-examples.sh
