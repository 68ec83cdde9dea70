#!/usr/bin/env bash
# Remakes bench/startup.order (see bench/startup-order.py for why): after `make release`, each
# function is relinked unstripped from the same objects, run under callgrind on the bench's
# requests and on each of its golden examples, and the functions that ran are written out, for
# the release link (Package.swift, releaseExecutableFlags) to lay side by side. Run it when start-up code has
# changed much; a stale list only costs memory, never correctness. It links the release
# binaries again at the end (SwiftPM does not see the list as an input).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=$(swift build -c release --static-swift-stdlib --show-bin-path)
work=bench-results/order
rm -rf "$work" && mkdir -p "$work"
export SIMULATE_PKI_DIR=Tests/Fixtures/pki APPSTORE_ROOT_CERTS=Tests/Fixtures/pki/root.pem
export APPSTORE_BUNDLE_ID=com.example.storekeeper APPSTORE_APP_APPLE_ID=1234567890
export APPSTORE_ENVIRONMENT=Production,Sandbox APPSTORE_ONLINE_CHECKS=off STORE_URL="sqlite:$work/store.db"

now_ms=$(( $(date +%s) * 1000 ))
transaction() { # $1 = transaction id, $2 = original transaction id
  printf '{"transactionId":"%s","originalTransactionId":"%s","bundleId":"com.example.storekeeper","productId":"com.example.pro.monthly","type":"Auto-Renewable Subscription","purchaseDate":%s,"expiresDate":%s,"environment":"Sandbox","inAppOwnershipType":"PURCHASED"}' "$1" "$2" "$now_ms" "$(( now_ms + 2592000000 ))"
}
echo "{\"sign\":\"notification\",\"payload\":{\"notificationType\":\"DID_RENEW\",\"data\":{\"bundleId\":\"com.example.storekeeper\",\"environment\":\"Sandbox\",\"transactionInfo\":$(transaction 1001 1000),\"renewalInfo\":{\"originalTransactionId\":\"1000\",\"autoRenewProductId\":\"com.example.pro.monthly\",\"productId\":\"com.example.pro.monthly\",\"autoRenewStatus\":1,\"environment\":\"Sandbox\"}}}}" \
  | "$BIN/simulate-store" 2>/dev/null > "$work/notification.json"
sed 's/"signedData"/"signedPayload"/' "$work/notification.json" > "$work/webhook.json"
echo "{\"sign\":\"transaction\",\"payload\":$(transaction 900001 900000)}" | "$BIN/simulate-store" 2>/dev/null \
  | sed 's/"signedData"/"jwsRepresentation"/; s/}$/,"userId":"order-user"}/' > "$work/ingest.json"
echo '{"userId":"order-user"}' > "$work/entitlements.json"

# name and request, in the order they run: each leaves the store as the next expects it, and
# verify-signed-data runs once first so its chain is cached, as in a deployment.
runs=("verify-signed-data notification.json" "verify-signed-data notification.json" "receive-notification webhook.json"
      "ingest-transaction ingest.json" "get-entitlements entitlements.json")
for run in "${runs[@]}"; do
  read -r name request <<<"$run"
  [ -x "$work/$name" ] || python3 bench/startup-order.py relink "$name" "$work/$name"
  valgrind --tool=callgrind --callgrind-out-file="$work/$name.$request.callgrind" "$work/$name" < "$work/$request" >/dev/null 2>&1
done
# Then the first request of a deployment, whose chain is not cached yet: X.509 validation and
# OpenSSL's providers (run against a fresh store, so nothing above is disturbed).
STORE_URL="sqlite:$work/cold.db" valgrind --tool=callgrind --callgrind-out-file="$work/cold.first-request.callgrind" \
  "$work/verify-signed-data" < "$work/notification.json" >/dev/null 2>&1
# Every function's golden examples (the requests bench/memory.py measures), once each.
python3 bench/startup-order.py examples "$work"
# Shared code first; the bench's request path before the other functions; the cold path last.
others=$(for folder in functions/*/; do basename "$folder"; done \
  | grep -vxE 'verify-signed-data|receive-notification|ingest-transaction|get-entitlements')
# shellcheck disable=SC2086 # one function name a word
python3 bench/startup-order.py order "$work" verify-signed-data receive-notification ingest-transaction \
  get-entitlements $others cold=verify-signed-data > bench/startup.order
echo "bench/startup.order: $(wc -l < bench/startup.order) functions"
# SwiftPM does not know the order file is a link input: link the functions again with it.
for folder in functions/*/; do rm -f "$BIN/$(basename "$folder")"; done
swift build -c release --static-swift-stdlib >/dev/null
echo "release binaries linked again with it"
