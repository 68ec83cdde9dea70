# Sourced by bench/run.sh (issue 16, retention messages): retention-message answering Apple's
# realtime requests through the gateway, nginx + FastCGI and lighttpd + CGI, p50 and p99
# against the 50 ms target (Apple waits well under a second and shows its own default message
# after that). The requests mix every kind of answer: a switch-plan option (no store read), a
# promotional offer signed as a JWS after reading the customer's history, the original offer
# signature, and the default message of a customer Storekeeper never heard of.
# Runs alone too: BIN=.build/release bash bench/retention.sh
RETENTION_PORT=${RETENTION_PORT:-18582}
RETENTION_SECONDS=${RETENTION_SECONDS:-10}
RETENTION_REQUESTS=${RETENTION_REQUESTS:-400}

# $1 = gateway (nginx|cgi). Prints "p50 p99 requests/s non-2xx".
retention_run() {
  local gateway=$1 state
  if [ "$gateway" = nginx ]; then
    state="$out/nginx"
    infra/nginx/nginx.sh start "$BIN" "$RETENTION_PORT" "$state"
  else
    state="$out/gateway"
    infra/gateway/gateway.sh start "$BIN" "$RETENTION_PORT" "$state" cgi
  fi
  # One answer checked before timing: a gateway that answers errors fast proves nothing.
  curl -s -X POST -H 'Content-Type: application/json' --data-binary @<(head -1 "$out/retention-requests.ndjson") \
    "http://127.0.0.1:$RETENTION_PORT/appstore/retention" > "$out/retention-answer.json" || true
  WRK_BODIES="$out/retention-requests.ndjson" WRK_PATH=/appstore/retention \
    wrk -t1 -c4 -d"${RETENTION_SECONDS}s" --latency -s bench/webhook.lua "http://127.0.0.1:$RETENTION_PORT" \
    > "$out/wrk-retention-$gateway.txt" 2>&1 || true
  if [ "$gateway" = nginx ]; then infra/nginx/nginx.sh stop "$state"; else infra/gateway/gateway.sh stop "$state"; fi
  grep -q '"promotionalOffer"' "$out/retention-answer.json" \
    || { echo "retention-message did not answer the bench's first request with an offer: $(cat "$out/retention-answer.json")" >&2; return 1; }
  awk '/Requests\/sec/ { rps = $2 } $1 == "50%" { p50 = $2 } $1 == "99%" { p99 = $2 } /Non-2xx/ { bad = $NF }
       END { printf "%s %s %s %s\n", p50, p99, rps, (bad == "" ? 0 : bad) }' "$out/wrk-retention-$gateway.txt"
}

# wrk's latency (850.00us, 3.21ms, 1.02s) in milliseconds.
retention_ms() {
  awk -v t="$1" 'BEGIN { v = t + 0; if (t ~ /us$/) v /= 1000; else if (t ~ /ms$/) v += 0; else if (t ~ /s$/) v *= 1000; printf "%.2f", v }'
}

retention_bench() (
  # The fixture catalog describes the test app and its retention rules; it replaces the
  # APPSTORE_* variables that describe one app (both at once is refused).
  unset APPSTORE_BUNDLE_ID APPSTORE_APP_APPLE_ID APPSTORE_ENVIRONMENT
  export STOREKEEPER_CATALOG=Tests/Fixtures/retention/catalog.json SIMULATE_PKI_DIR=Tests/Fixtures/pki \
    APPSTORE_ROOT_CERTS=Tests/Fixtures/pki/root.pem APPSTORE_ONLINE_CHECKS=off STORE_URL="sqlite:$out/retention-store.db" \
    APPSTORE_OFFER_KEY_ID=BENCHOFFER APPSTORE_OFFER_PRIVATE_KEY=Tests/Fixtures/pki/subscription-offer-key.p8 \
    APPSTORE_ISSUER_ID=57246542-96fe-1a63-e053-0824d011072a
  rm -f "$out"/retention-store.db*
  echo
  echo "== retention-message through the gateway: wrk ${RETENTION_SECONDS} s, 4 connections, SQLite =="
  local now day=86400000
  now=$(( $(date +%s) * 1000 ))
  # A yearly subscriber of 200 days, known to the store.
  printf '{"sign":"transaction","payload":{"transactionId":"880002","originalTransactionId":"880001","bundleId":"com.example.storekeeper","productId":"com.example.pro.yearly","subscriptionGroupIdentifier":"21000001","type":"Auto-Renewable Subscription","purchaseDate":%s,"originalPurchaseDate":%s,"expiresDate":%s,"signedDate":%s,"environment":"Sandbox","inAppOwnershipType":"PURCHASED"}}\n' \
    "$((now - day))" "$((now - 200 * day))" "$((now + 160 * day))" "$now" | "$BIN/simulate-store" 2>/dev/null \
    | sed 's/"signedData"/"signedTransaction"/; s/}$/,"userId":"bench-retention"}/' | "$BIN/ingest-transaction" >/dev/null 2>&1
  awk -v n="$RETENTION_REQUESTS" -v now="$now" 'BEGIN {
    split("com.example.pro.yearly 880001 en-US|com.example.pro.monthly 880101 en-US|com.example.pro.monthly 880201 fr-FR|com.example.pro.yearly 880301 en-GB", kinds, "|")
    for (i = 1; i <= n; i++) {
      split(kinds[(i - 1) % 4 + 1], k, " ")
      printf "{\"sign\":\"realtimeRequest\",\"payload\":{\"originalTransactionId\":\"%s\",\"appAppleId\":1234567890,\"productId\":\"%s\",\"userLocale\":\"%s\",\"requestIdentifier\":\"%08x-0000-4000-8000-%012x\",\"environment\":\"Sandbox\",\"signedDate\":%s}}\n", k[2], k[1], k[3], i, i, now
    } }' | "$BIN/simulate-store" 2>/dev/null | sed 's/"signedData"/"signedPayload"/' > "$out/retention-requests.ndjson"
  [ "$(wc -l < "$out/retention-requests.ndjson")" -eq "$RETENTION_REQUESTS" ] || { echo "retention request signing failed" >&2; return 1; }
  local gateway p50 p99 rps bad p50_ms p99_ms
  for gateway in nginx cgi; do
    read -r p50 p99 rps bad <<<"$(retention_run "$gateway")"
    p50_ms=$(retention_ms "$p50") p99_ms=$(retention_ms "$p99")
    printf '  %-14s p50 %8s ms  p99 %8s ms  %8s requests/s  non-2xx %s   target p99 < 50 ms: %s\n' \
      "$([ "$gateway" = nginx ] && echo nginx+FastCGI || echo lighttpd+CGI)" "$p50_ms" "$p99_ms" "$rps" "$bad" \
      "$(awk -v p="$p99_ms" -v b="$bad" 'BEGIN { print ((p > 0 && p < 50 && b == 0) ? "met" : "MISSED") }')"
  done
)

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  cd "$(dirname "$0")/.."
  : "${BIN:?BIN must name the folder of the binaries}"
  out=bench-results
  mkdir -p "$out"
  retention_bench
fi
