#!/usr/bin/env bash
# `make demo`, part two: a subscription's life as Apple tells it. Starts the gateway
# (lighttpd running the functions as CGI) on the embedded default store (SQLite), then plays
# SUBSCRIBED/INITIAL_BUY, DID_RENEW, DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED,
# EXPIRED/VOLUNTARY, a resubscribe and a refund as signed notifications POSTed over HTTP,
# runs the worker after each, and prints the entitlement as get-entitlements answers it, and
# the customer as get-customer answers it: "pro: active/inactive", the deciding product, and
# the subscription's status (active, expired, refunded). Ends by printing the dashboard's
# address on this gateway and how to sign in; when standard input is a terminal it keeps the
# gateway up until Ctrl-C, otherwise it stops it and exits 0.
# Stops what it started. Needs $BIN (the built function binaries).
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${BIN:?BIN must name the folder of the built binaries}"
state=var/demo
rm -rf "$state"
mkdir -p "$state"
port=${DEMO_PORT:-18480}
export SIMULATE_PKI_DIR=Tests/Fixtures/pki
export APPSTORE_ROOT_CERTS=Tests/Fixtures/pki/root.pem
# The catalog names the app (com.example.storekeeper, sandbox only) and says its monthly
# grants `pro`; get-customer answers by that name.
export STOREKEEPER_CATALOG=$PWD/infra/demo/demo-catalog.json   # absolute: CGI runs in the binaries' folder
bundle=com.example.storekeeper
apple_id=1234567890
export APPSTORE_ONLINE_CHECKS=off          # the demo PKI has no OCSP responder running
export STORE_URL=sqlite:$state/storekeeper.db
export STOREKEEPER_ADMIN_TOKEN=demo-admin-token

infra/gateway/gateway.sh start "$BIN" "$port" "$state/gateway"
trap 'infra/gateway/gateway.sh stop "$state/gateway"' EXIT
base=http://127.0.0.1:$port

token=7e3fb20b-4cdb-47cc-936d-99d65f608138      # the appAccountToken the app gave StoreKit
original=3000000001
day=86400000
t0=$(( $(date +%s) * 1000 ))
period=$(( 30 * day ))

# notification TYPE SUBTYPE WHEN TRANSACTION_ID PURCHASED EXPIRES AUTO_RENEW [REVOKED_AT]
notification() {
  local revocation=""
  [ -n "${8:-}" ] && revocation=", \"revocationDate\": $8, \"revocationReason\": 0"
  local subtype=""
  [ "$2" != "-" ] && subtype="\"subtype\": \"$2\","
  cat <<JSON | "$BIN/simulate-store" 2>/dev/null | jq -r .signedData
{"sign": "notification", "payload": {"notificationType": "$1", $subtype "signedDate": $3,
 "data": {"bundleId": "$bundle", "environment": "Sandbox", "appAppleId": $apple_id,
  "transactionInfo": {"transactionId": "$4", "originalTransactionId": "$original", "bundleId": "$bundle",
    "productId": "com.example.pro.monthly", "type": "Auto-Renewable Subscription", "purchaseDate": $5,
    "originalPurchaseDate": $t0, "expiresDate": $6, "inAppOwnershipType": "PURCHASED", "environment": "Sandbox",
    "appAccountToken": "$token", "signedDate": $3 $revocation},
  "renewalInfo": {"originalTransactionId": "$original", "autoRenewProductId": "com.example.pro.monthly",
    "productId": "com.example.pro.monthly", "autoRenewStatus": $7, "environment": "Sandbox", "signedDate": $3}}}}
JSON
}

step() { # TITLE WHEN SIGNED_PAYLOAD
  local answer
  answer=$(curl -s -X POST --data-binary "{\"signedPayload\": \"$3\"}" -H 'Content-Type: application/json' "$base/appstore/notifications")
  echo "$(date -u -d @$(( $2 / 1000 )) +%F)  $1"
  echo "            Apple → POST /appstore/notifications → $(jq -r .status <<<"$answer")"
  echo '{}' | "$BIN/process-notifications" 2>/dev/null | jq -r '"            worker: applied \(.applied), stale \(.stale), duplicate \(.duplicate)"'
  curl -s -H "Authorization: Bearer $STOREKEEPER_ADMIN_TOKEN" "$base/entitlements?appAccountToken=$token" | jq -r '
    .entitlements[0] as $e |
    "            GET /entitlements → \($e.status)\(if $e.active then " (paid features ON)" else " (paid features off)" end)"
    + ", auto-renew \(if $e.autoRenew then "on" else "off" end)"
    + ", expires \($e.expiresDate / 1000 | strftime("%F"))"'
  curl -s -H "Authorization: Bearer $STOREKEEPER_ADMIN_TOKEN" "$base/customers?appAccountToken=$token" | jq -r '
    .customer as $c | ($c.subscriptions | to_entries | map("\(.key) \(.value.status)") | join(", ")) as $subs |
    ($c.entitlements | to_entries[] |
      "            GET /customers → \(.key): \(if .value.active then "active" else "inactive" end)"
      + " (deciding: \(.value.productId // .value.grantedBy))") + "; subscription: \($subs)"'
}

echo "Storekeeper demo: a subscription's lifecycle through lighttpd ($base), state in $STORE_URL"
echo
step "SUBSCRIBED / INITIAL_BUY" "$t0" "$(notification SUBSCRIBED INITIAL_BUY "$t0" 3000000001 "$t0" $((t0 + period)) 1)"
t1=$((t0 + period))
renew=$(notification DID_RENEW - "$t1" 3000000002 "$t1" $((t1 + period)) 1)
step "DID_RENEW" "$t1" "$renew"
t2=$((t1 + 10 * day))
step "DID_CHANGE_RENEWAL_STATUS / AUTO_RENEW_DISABLED" "$t2" "$(notification DID_CHANGE_RENEWAL_STATUS AUTO_RENEW_DISABLED "$t2" 3000000002 "$t1" $((t1 + period)) 0)"
t3=$((t1 + period))
step "EXPIRED / VOLUNTARY" "$t3" "$(notification EXPIRED VOLUNTARY "$t3" 3000000002 "$t1" $((t1 + period)) 0)"
echo "            (the DID_RENEW from December arrives again: Apple's retry of the same notification)"
step "DID_RENEW, retried" "$t1" "$renew"
echo "            (another notification signed in December arrives only now: out of order)"
step "DID_RENEW, late" "$t1" "$(notification DID_RENEW - "$t1" 3000000002 "$t1" $((t1 + period)) 1)"
t4=$((t3 + 20 * day))
step "SUBSCRIBED / RESUBSCRIBE" "$t4" "$(notification SUBSCRIBED RESUBSCRIBE "$t4" 3000000003 "$t4" $((t4 + period)) 1)"
t5=$((t4 + 3 * day))
step "REFUND" "$t5" "$(notification REFUND - "$t5" 3000000003 "$t4" $((t4 + period)) 1 "$t5")"
echo
echo "The customer's timeline (GET /customers → history; the late DID_RENEW changed nothing, and is there):"
curl -s -H "Authorization: Bearer $STOREKEEPER_ADMIN_TOKEN" "$base/customers?appAccountToken=$token" | jq -r '
  .customer.history[] | "  \(.date / 1000 | strftime("%F"))  \(.type)\(if .subtype then " / \(.subtype)" else "" end)  (\(.source))"'
echo
echo "Gateway log lines (functions' JSON logs) are in $state/gateway/functions.log"

# The dashboard on the same gateway, with the demo's data in it (Sandbox: the demo's environment).
dashboard="$base/dashboard?environment=Sandbox"
status=$(curl -s -o "$state/dashboard.html" -w '%{http_code}' -H "Authorization: Bearer $STOREKEEPER_ADMIN_TOKEN" "$dashboard")
if [ "$status" != 200 ] || ! grep -q 'Active subscriptions' "$state/dashboard.html"; then
  echo "the dashboard did not answer its page (HTTP $status); see $state/gateway/functions.log" >&2
  exit 1
fi
echo
echo "The dashboard: $dashboard"
echo "  sign in with the demo's admin token: $STOREKEEPER_ADMIN_TOKEN"
echo "  the demo's customer: $base/dashboard?environment=Sandbox&customer=$token"
if [ -t 0 ]; then
  echo "The gateway stays up until Ctrl-C."
  trap 'echo; echo "stopping the gateway"; exit 0' INT TERM
  while true; do sleep 3600 & wait $!; done
fi
echo "(standard input is not a terminal: the gateway stops now; make serve keeps one up)"
