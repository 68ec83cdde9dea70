#!/usr/bin/env bash
# Makes legacy-v1.db: a store as layout version 1 wrote it (Storekeeper before the catalog,
# commit d698c2e and earlier: records under appstore:entitlement:<id>, sets of bare ids), and
# answers-v1.json: what that build's get-entitlements answered about it. LegacyStoreTests
# opens a copy with today's binaries and expects the same answers.
#
# It must be run with binaries of a layout-1 build (BIN=...): today's binaries write layout 2.
# Kept to show how the fixture was made; the fixture itself is committed.
set -euo pipefail
cd "$(dirname "$0")"
: "${BIN:?BIN must name the folder of layout-1 binaries}"
pki=../pki
export SIMULATE_PKI_DIR=$pki APPSTORE_ROOT_CERTS=$pki/root.pem APPSTORE_BUNDLE_ID=com.example.storekeeper
export APPSTORE_APP_APPLE_ID=1234567890 APPSTORE_ENVIRONMENT=Sandbox APPSTORE_ONLINE_CHECKS=off
export STOREKEEPER_NOW=1780272000 STORE_URL=sqlite:legacy-v1.db
rm -f legacy-v1.db legacy-v1.db-wal legacy-v1.db-shm answers-v1.json
t0=1780272000000 day=86400000
token_linked=7e3fb20b-4cdb-47cc-936d-99d65f608138
token_alone=2b1c7f6e-0d55-4c3a-9a57-5f3b2f1e9c11

# transaction ORIGINAL ID PRODUCT PURCHASED EXPIRES TOKEN
transaction() {
  cat <<JSON
{"transactionId": "$2", "originalTransactionId": "$1", "bundleId": "$APPSTORE_BUNDLE_ID", "productId": "$3",
 "type": "Auto-Renewable Subscription", "purchaseDate": $4, "originalPurchaseDate": $4, "expiresDate": $5,
 "inAppOwnershipType": "PURCHASED", "environment": "Sandbox", "appAccountToken": "$6", "signedDate": $4,
 "subscriptionGroupIdentifier": "21000001", "price": 4990, "currency": "USD", "storefront": "USA"}
JSON
}

notify() { # TYPE SUBTYPE TRANSACTION_JSON
  local signed
  signed=$(echo "{\"sign\": \"notification\", \"payload\": {\"notificationType\": \"$1\", \"subtype\": \"$2\",
    \"signedDate\": $(jq .signedDate <<<"$3"), \"data\": {\"bundleId\": \"$APPSTORE_BUNDLE_ID\", \"environment\": \"Sandbox\",
    \"appAppleId\": $APPSTORE_APP_APPLE_ID, \"transactionInfo\": $3}}}" | "$BIN/simulate-store" 2>/dev/null | jq -r .signedData)
  echo "{\"signedPayload\": \"$signed\"}" | "$BIN/receive-notification" >/dev/null 2>&1
}

# A subscription bought with a token before its user was known, renewed once.
notify SUBSCRIBED INITIAL_BUY "$(transaction 3000000001 3000000001 com.example.pro.monthly $t0 $(( t0 + 30 * day )) $token_linked)"
notify DID_RENEW BILLING_RECOVERY "$(transaction 3000000001 3000000002 com.example.pro.monthly $(( t0 + 30 * day )) $(( t0 + 60 * day )) $token_linked)"
# A second purchase ingested for user-1 with the same token: the token and the first subscription join user-1.
signed=$(echo "{\"sign\": \"transaction\", \"payload\": $(transaction 3000000101 3000000101 com.example.pro.yearly $t0 $(( t0 + 365 * day )) $token_linked)}" \
  | "$BIN/simulate-store" 2>/dev/null | jq -r .signedData)
echo "{\"jwsRepresentation\": \"$signed\", \"userId\": \"user-1\"}" | "$BIN/ingest-transaction" >/dev/null 2>&1
# A purchase nobody claimed.
notify SUBSCRIBED INITIAL_BUY "$(transaction 3000000201 3000000201 com.example.pro.monthly $t0 $(( t0 + 30 * day )) $token_alone)"
echo '{}' | "$BIN/process-notifications" >/dev/null 2>&1

export STOREKEEPER_NOW=$(( (t0 + 45 * day) / 1000 ))
{
  echo '{"userId": "user-1"}' | "$BIN/get-entitlements" 2>/dev/null
  echo "{\"appAccountToken\": \"$token_alone\"}" | "$BIN/get-entitlements" 2>/dev/null
  echo '{"originalTransactionId": "3000000001"}' | "$BIN/get-entitlements" 2>/dev/null
} | jq -s '{"now": '"$STOREKEEPER_NOW"', "byUser": .[0], "byToken": .[1], "byOriginalTransactionId": .[2]}' > answers-v1.json
sqlite3 legacy-v1.db 'PRAGMA wal_checkpoint(TRUNCATE);' >/dev/null
rm -f legacy-v1.db-wal legacy-v1.db-shm
echo "made legacy-v1.db and answers-v1.json"
