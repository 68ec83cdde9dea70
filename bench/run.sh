#!/usr/bin/env bash
# `make bench`: figures, not a test. Times the release binaries as the product runs them (a
# process per request, stdin from a file) next to the floors measured in the same run.
# Needs $BIN (the release binaries' folder). Prints a table; writes bench-results/*.json.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${BIN:?BIN must name the folder of the release binaries}"
out=bench-results
mkdir -p "$out"
RUNS=${RUNS:-200}
BATCH=${BATCH:-2000}

cc -O2 -Wall -Wextra -o "$out/spawn-timer" bench/spawn-timer.c
cc -O2 -o "$out/hello-c" bench/hello.c
[ "$out/hello-swift" -nt bench/hello.swift ] || swiftc -O -static-stdlib bench/hello.swift -o "$out/hello-swift" 2>/dev/null
timer="$out/spawn-timer"

export SIMULATE_PKI_DIR=Tests/Fixtures/pki
export APPSTORE_ROOT_CERTS=Tests/Fixtures/pki/root.pem
export APPSTORE_BUNDLE_ID=com.example.storekeeper
export APPSTORE_APP_APPLE_ID=1234567890
export APPSTORE_ENVIRONMENT=Production,Sandbox

# One notification (three JWS, one chain), and a batch of distinct transactions signed by one
# simulate-store process in NDJSON mode.
now_ms=$(( $(date +%s) * 1000 ))
transaction() { # $1 = transaction id
  printf '{"transactionId":"%s","originalTransactionId":"1000","bundleId":"com.example.storekeeper","productId":"com.example.pro.monthly","type":"Auto-Renewable Subscription","purchaseDate":%s,"expiresDate":%s,"environment":"Sandbox","inAppOwnershipType":"PURCHASED"}' "$1" "$now_ms" "$(( now_ms + 2592000000 ))"
}
echo "{\"sign\":\"notification\",\"payload\":{\"notificationType\":\"DID_RENEW\",\"data\":{\"bundleId\":\"com.example.storekeeper\",\"environment\":\"Sandbox\",\"transactionInfo\":$(transaction 1001),\"renewalInfo\":{\"originalTransactionId\":\"1000\",\"autoRenewProductId\":\"com.example.pro.monthly\",\"productId\":\"com.example.pro.monthly\",\"autoRenewStatus\":1,\"environment\":\"Sandbox\"}}}}" \
  | "$BIN/simulate-store" 2>/dev/null > "$out/notification.json"
for i in $(seq 1 "$BATCH"); do echo "{\"sign\":\"transaction\",\"payload\":$(transaction $((2000 + i)))}"; done \
  | "$BIN/simulate-store" 2>/dev/null > "$out/batch.ndjson"
[ "$(wc -l < "$out/batch.ndjson")" -eq "$BATCH" ] || { echo "batch signing failed" >&2; exit 1; }
grep -q '"valid":true' <("$BIN/verify-signed-data" < "$out/notification.json") || { echo "the benchmark notification does not verify" >&2; exit 1; }

field() { sed -n "s/.*\"$1\": *\([0-9.]*\).*/\1/p"; }

echo "== whole process, median of $RUNS runs (stdin from a file) =="
c_hello=$("$timer" -n "$RUNS" -w 20 -- "$out/hello-c" | tee "$out/hello-c.json")
swift_hello=$("$timer" -n "$RUNS" -w 20 -- "$out/hello-swift" | tee "$out/hello-swift.json")
verify_one=$("$timer" -n "$RUNS" -w 20 -i "$out/notification.json" -- "$BIN/verify-signed-data" | tee "$out/verify-notification.json")
printf '  %-44s %8s us  (peak RSS %s KiB)\n' "C hello world (floor)" "$(field median_us <<<"$c_hello")" "$(field max_rss_kib <<<"$c_hello")"
printf '  %-44s %8s us  (peak RSS %s KiB)\n' "static Swift hello world (floor)" "$(field median_us <<<"$swift_hello")" "$(field max_rss_kib <<<"$swift_hello")"
printf '  %-44s %8s us  (peak RSS %s KiB)\n' "verify-signed-data, one notification (3 JWS)" "$(field median_us <<<"$verify_one")" "$(field max_rss_kib <<<"$verify_one")"

echo "== batch: $BATCH distinct transactions through one process (NDJSON) =="
batch=$("$timer" -n 7 -w 1 -i "$out/batch.ndjson" -- "$BIN/verify-signed-data" | tee "$out/verify-batch.json")
per_jws=$(awk -v t="$(field median_us <<<"$batch")" -v one="$(field median_us <<<"$verify_one")" -v n="$BATCH" 'BEGIN { printf "%.1f", (t - one) / n }')
speed=$(openssl speed -seconds 2 ecdsap256 2>/dev/null | awk '/256 bits ecdsa/ { print $NF }')
raw_verify=$(awk -v s="$speed" 'BEGIN { printf "%.1f", 1000000 / s }')
printf '  %-44s %8s us  (peak RSS %s KiB)\n' "whole batch" "$(field median_us <<<"$batch")" "$(field max_rss_kib <<<"$batch")"
printf '  %-44s %8s us\n' "per JWS in batch (batch - one process) / N" "$per_jws"
printf '  %-44s %8s us  (%s verify/s)\n' "openssl speed ecdsap256 verify (floor)" "$raw_verify" "$speed"

echo "== targets =="
awk -v v="$(field median_us <<<"$verify_one")" -v h="$(field median_us <<<"$swift_hello")" \
    -v p="$per_jws" -v r="$raw_verify" -v m="$(field max_rss_kib <<<"$verify_one")" 'BEGIN {
  printf "  process / static Swift hello   %5.2fx  (target < 3x)    %s\n", v / h, (v < 3 * h ? "met" : "MISSED")
  printf "  batch per JWS / raw verify     %5.2fx  (target <= 2x)   %s\n", p / r, (p <= 2 * r ? "met" : "MISSED")
  printf "  peak memory of one run         %5.1f MiB (target < 16) %s\n", m / 1024, (m < 16384 ? "met" : "MISSED")
}'
