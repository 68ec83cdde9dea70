#!/usr/bin/env bash
# `make demo` (issue: foundation): sign App Store data with the local test PKI through
# simulate-store, then show verify-signed-data accepting it and rejecting tampered or foreign
# copies, each with Apple's error code. Uses only the embedded defaults; needs $BIN (the
# folder with the built function binaries).
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${BIN:?BIN must name the folder of the built binaries}"
pki=Tests/Fixtures/pki
export SIMULATE_PKI_DIR=$pki
export APPSTORE_ROOT_CERTS=$pki/root.pem
export APPSTORE_BUNDLE_ID=com.example.storekeeper
export APPSTORE_ENVIRONMENT=Sandbox

now_ms=$(( $(date +%s) * 1000 ))
month_ms=$(( 30 * 24 * 3600 * 1000 ))

sign() { "$BIN/simulate-store" 2>/dev/null | jq -r .signedData; }
verify() { "$BIN/verify-signed-data" 2>/dev/null || true; }
show() {
  jq -r 'if .valid then
           "  ✔ valid \(.type) (\(.environment))" +
           (if .payload.notificationType then ": \(.payload.notificationType)/\(.payload.subtype // "-")" else "" end) +
           (if .transactionInfo then ", product \(.transactionInfo.productId), expires \(.transactionInfo.expiresDate / 1000 | todate)" else "" end)
         else "  ✘ rejected: \(.error.code) — \(.error.message)" end'
}

notification() { # $1 = bundle id, $2 = chain leaf stem, $3 = environment
  cat <<JSON | sign
{"sign": "notification", "chain": {"leaf": "$2"},
 "payload": {"notificationType": "SUBSCRIBED", "subtype": "INITIAL_BUY",
  "data": {"bundleId": "$1", "environment": "$3", "appAppleId": 1234567890,
   "transactionInfo": {"transactionId": "2000000001", "originalTransactionId": "2000000001",
     "bundleId": "$1", "productId": "com.example.pro.monthly", "type": "Auto-Renewable Subscription",
     "purchaseDate": $now_ms, "originalPurchaseDate": $now_ms, "expiresDate": $(( now_ms + month_ms )),
     "inAppOwnershipType": "PURCHASED", "environment": "$3", "transactionReason": "PURCHASE"},
   "renewalInfo": {"originalTransactionId": "2000000001", "autoRenewProductId": "com.example.pro.monthly",
     "productId": "com.example.pro.monthly", "autoRenewStatus": 1, "environment": "$3"}}}}
JSON
}

echo "Storekeeper demo: verify-signed-data with a local test PKI (root: $pki/root.pem)"
echo
echo "1. A SUBSCRIBED notification signed like Apple's (leaf → WWDR intermediate → root):"
good=$(notification com.example.storekeeper leaf Sandbox)
echo "  signedPayload: ${good:0:40}…(${#good} characters)"
echo "{\"signedData\": \"$good\"}" | verify | show

echo "2. The same notification with its payload swapped for another one (signature no longer matches):"
other=$(notification com.example.storekeeper leaf Sandbox)
tampered="$(cut -d. -f1 <<<"$good").$(cut -d. -f2 <<<"$other").$(cut -d. -f3 <<<"$good")"
echo "{\"signedData\": \"$tampered\"}" | verify | show

echo "3. Signed for another app:"
echo "{\"signedData\": \"$(notification com.example.someone-else leaf Sandbox)\"}" | verify | show

echo "4. Signed with an expired leaf certificate:"
echo "{\"signedData\": \"$(notification com.example.storekeeper leaf-expired Sandbox)\"}" | verify | show

echo "5. Production data on a server that accepts only Sandbox:"
echo "{\"signedData\": \"$(notification com.example.storekeeper leaf Production)\"}" | verify | show

echo "6. Not a JWS at all:"
echo '{"signedData": "hello.world"}' | verify | show
