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
# The default online checks (soft OCSP) against the test PKI's responders, so the figures are
# the steady state of a deployment whose OCSP answers and proven chains sit in the store.
export APPSTORE_ONLINE_CHECKS=soft
export STORE_URL="sqlite:$out/verify-store.db"
rm -f "$out"/verify-store.db*
ocsp_pids=()
for responder in "18888 index.txt intermediate ocsp-responder" "18889 root-index.txt root root-ocsp-responder"; do
  read -r port index ca signer <<<"$responder"
  (cd Tests/Fixtures/pki && exec timeout --signal=KILL 600 openssl ocsp -port "$port" -index "$index" -CA "$ca.pem" \
     -rsigner "$signer.pem" -rkey "$signer.key" -ndays 1 >/dev/null 2>&1) &
  ocsp_pids+=($!)
done
stop_ocsp() { for pid in "${ocsp_pids[@]}"; do pkill -9 -P "$pid" 2>/dev/null || true; kill -9 "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done; ocsp_pids=(); }
trap stop_ocsp EXIT
sleep 0.5

# One notification (three JWS, one chain), and a batch of distinct transactions signed by one
# simulate-store process in NDJSON mode.
now_ms=$(( $(date +%s) * 1000 ))
transaction() { # $1 = transaction id, $2 = original transaction id (default 1000)
  printf '{"transactionId":"%s","originalTransactionId":"'"${2:-1000}"'","bundleId":"com.example.storekeeper","productId":"com.example.pro.monthly","type":"Auto-Renewable Subscription","purchaseDate":%s,"expiresDate":%s,"environment":"Sandbox","inAppOwnershipType":"PURCHASED"}' "$1" "$now_ms" "$(( now_ms + 2592000000 ))"
}
echo "{\"sign\":\"notification\",\"payload\":{\"notificationType\":\"DID_RENEW\",\"data\":{\"bundleId\":\"com.example.storekeeper\",\"environment\":\"Sandbox\",\"transactionInfo\":$(transaction 1001),\"renewalInfo\":{\"originalTransactionId\":\"1000\",\"autoRenewProductId\":\"com.example.pro.monthly\",\"productId\":\"com.example.pro.monthly\",\"autoRenewStatus\":1,\"environment\":\"Sandbox\"}}}}" \
  | "$BIN/simulate-store" 2>/dev/null > "$out/notification.json"
for i in $(seq 1 "$BATCH"); do echo "{\"sign\":\"transaction\",\"payload\":$(transaction $((2000 + i)))}"; done \
  | "$BIN/simulate-store" 2>/dev/null > "$out/batch.ndjson"
[ "$(wc -l < "$out/batch.ndjson")" -eq "$BATCH" ] || { echo "batch signing failed" >&2; exit 1; }
answer=$("$BIN/verify-signed-data" < "$out/notification.json" 2>/dev/null)
grep -q '"valid":true' <<<"$answer" || { echo "the benchmark notification does not verify: $answer" >&2; exit 1; }
echo "online check of the benchmark chain: $(sed -n 's/.*"onlineCheck":"\([a-z]*\)".*/\1/p' <<<"$answer")"

field() { sed -n "s/.*\"$1\": *\([0-9.]*\).*/\1/p"; }

echo "== whole process, median of $RUNS runs (stdin from a file) =="
c_hello=$("$timer" -n "$RUNS" -w 20 -- "$out/hello-c" | tee "$out/hello-c.json")
swift_hello=$("$timer" -n "$RUNS" -w 20 -- "$out/hello-swift" | tee "$out/hello-swift.json")
verify_one=$("$timer" -n "$RUNS" -w 20 -i "$out/notification.json" -- "$BIN/verify-signed-data" | tee "$out/verify-notification.json")
printf '  %-44s %8s us  (peak RSS %s KiB)\n' "C hello world (floor)" "$(field median_us <<<"$c_hello")" "$(field max_rss_kib <<<"$c_hello")"
printf '  %-44s %8s us  (peak RSS %s KiB)\n' "static Swift hello world (floor)" "$(field median_us <<<"$swift_hello")" "$(field max_rss_kib <<<"$swift_hello")"
printf '  %-44s %8s us  (peak RSS %s KiB)\n' "verify-signed-data, one notification (3 JWS)" "$(field median_us <<<"$verify_one")" "$(field max_rss_kib <<<"$verify_one")"
# Instructions do not depend on how busy the machine is: the figure to compare across changes.
if command -v valgrind >/dev/null; then
  instructions=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$BIN/verify-signed-data" \
    < "$out/notification.json" 2>&1 >/dev/null | sed -n 's/.*Collected : *\([0-9]*\).*/\1/p')
  printf '  %-44s %8s instructions (callgrind)\n' "verify-signed-data, one notification" "$instructions"
else
  echo "  verify-signed-data under callgrind: valgrind is not installed (apt-get install valgrind)"
fi

# Apple's own Python library (app-store-server-library, PyPI) verifying the same notification,
# one process per request: the comparison the issue names. Installed once into a venv here.
PYTHON_RUNS=${PYTHON_RUNS:-30}
venv="$out/apple-python"
[ -x "$venv/bin/python3" ] || python3 -m venv "$venv"
"$venv/bin/python3" -c 'import appstoreserverlibrary' 2>/dev/null || "$venv/bin/pip" install -q app-store-server-library
grep -q '"valid": true' <("$venv/bin/python3" bench/apple-python-verify.py < "$out/notification.json" 2>&1) \
  || { echo "Apple's Python library does not verify the benchmark notification" >&2; exit 1; }
python_one=$("$timer" -n "$PYTHON_RUNS" -w 2 -i "$out/notification.json" -- "$venv/bin/python3" bench/apple-python-verify.py | tee "$out/apple-python.json")
printf '  %-44s %8s us  (peak RSS %s KiB; %s runs; app-store-server-library %s)\n' "Apple's Python library, the same notification" \
  "$(field median_us <<<"$python_one")" "$(field max_rss_kib <<<"$python_one")" "$PYTHON_RUNS" \
  "$("$venv/bin/pip" show app-store-server-library 2>/dev/null | sed -n 's/^Version: //p')"

echo "== batch: $BATCH distinct transactions through one process (NDJSON) =="
batch=$("$timer" -n 7 -w 1 -i "$out/batch.ndjson" -- "$BIN/verify-signed-data" | tee "$out/verify-batch.json")
per_jws=$(awk -v t="$(field median_us <<<"$batch")" -v one="$(field median_us <<<"$verify_one")" -v n="$BATCH" 'BEGIN { printf "%.1f", (t - one) / n }')
speed=$(openssl speed -seconds 2 ecdsap256 2>/dev/null | awk '/256 bits ecdsa/ { print $NF }')
raw_verify=$(awk -v s="$speed" 'BEGIN { printf "%.1f", 1000000 / s }')
printf '  %-44s %8s us  (peak RSS %s KiB)\n' "whole batch" "$(field median_us <<<"$batch")" "$(field max_rss_kib <<<"$batch")"
printf '  %-44s %8s us\n' "per JWS in batch (batch - one process) / N" "$per_jws"
printf '  %-44s %8s us  (%s verify/s)\n' "openssl speed ecdsap256 verify (floor)" "$raw_verify" "$speed"

echo "== targets (issue \"Speed\") =="
awk -v v="$(field median_us <<<"$verify_one")" -v h="$(field median_us <<<"$swift_hello")" -v py="$(field median_us <<<"$python_one")" \
    -v p="$per_jws" -v r="$raw_verify" -v m="$(field max_rss_kib <<<"$verify_one")" 'BEGIN {
  printf "  process / static Swift hello   %5.2fx  (target <= 2x)   %s\n", v / h, (v <= 2 * h ? "met" : "MISSED")
  printf "  Apple Python / process         %5.1fx  (issue: about 50x faster)\n", py / v
  printf "  batch per JWS / raw verify     %5.2fx  (target <= 1.3x) %s\n", p / r, (p <= 1.3 * r ? "met" : "MISSED")
  printf "  peak memory of one run         %5.1f MiB (target <= 10) %s  (every function: see the end)\n", m / 1024, (m <= 10240 ? "met" : "MISSED")
}'

# ---------------------------------------------------------------------------------------
# The store (issue "The store and the wire"): operations per second on each backend, and the
# cost of opening the store in a fresh process (paid on every request).
redis_dir=$(mktemp -d)
redis_port=$(( 20000 + RANDOM % 20000 ))
# The same server on a TLS port too (issue 19): the test certificates, server authentication only.
tls_port=$(( redis_port + 1 ))
tls=Tests/Fixtures/redis-tls
redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no --dir "$redis_dir" --daemonize yes \
  --pidfile "$redis_dir/redis.pid" --tls-port "$tls_port" --tls-cert-file "$tls/server.pem" --tls-key-file "$tls/server.key" \
  --tls-ca-cert-file "$tls/client-ca.pem" --tls-auth-clients no >/dev/null
# For rediss:// only; store-stress ignores it otherwise (the functions would refuse it with sqlite:).
store_tls=(env STORE_TLS_CA_FILE="$tls/ca.pem")
cleanup() {
  stop_ocsp
  [ -f "$redis_dir/redis.pid" ] && kill "$(cat "$redis_dir/redis.pid")" 2>/dev/null || true
  for pidfile in "$redis_dir"/cluster-*/redis.pid; do [ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null || true; done
  infra/gateway/gateway.sh stop "$out/gateway" 2>/dev/null || true
  [ -z "${slow_pid:-}" ] || kill "$slow_pid" 2>/dev/null || true
  rm -rf "$redis_dir"
}
trap cleanup EXIT
for _ in $(seq 1 100); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.05; done
# A Redis Cluster of three primaries, each with a replica (issue 19): every write waits for
# its replica (WAIT), as in production.
# Below the kernel's ephemeral range (32768 and up), so no client connection holds one of
# the ports (or the cluster bus ports) when the nodes bind them.
cluster_ports=()
cluster_base=$(( 12000 + RANDOM % 8000 ))
for i in 0 1 2 3 4 5; do
  port=$(( cluster_base + i ))
  cluster_ports+=("$port")
  mkdir -p "$redis_dir/cluster-$port"
  redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$redis_dir/cluster-$port" --daemonize yes \
    --pidfile "$redis_dir/cluster-$port/redis.pid" --logfile "$redis_dir/cluster-$port/redis.log" --cluster-enabled yes \
    --cluster-config-file nodes.conf --cluster-port $(( cluster_base + 10 + i )) --cluster-node-timeout 2000 >/dev/null
done
for port in "${cluster_ports[@]}"; do
  for _ in $(seq 1 100); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.05; done
done
redis-cli --cluster create $(printf '127.0.0.1:%s ' "${cluster_ports[@]}") --cluster-replicas 1 --cluster-yes >/dev/null
for port in "${cluster_ports[@]}"; do
  for _ in $(seq 1 200); do redis-cli -p "$port" cluster info 2>/dev/null | grep -q 'cluster_state:ok' && break; sleep 0.05; done
done
# Replicas are announced in CLUSTER SLOTS once they have synced.
for _ in $(seq 1 200); do [ "$(redis-cli -p "${cluster_ports[0]}" cluster slots | grep -c '^127.0.0.1$')" -ge 6 ] && break; sleep 0.1; done
sqlite_url="sqlite:$out/bench-store.db"
redis_url="redis://127.0.0.1:$redis_port/0"
rediss_url="rediss://localhost:$tls_port/1"
cluster_url="redis://127.0.0.1:${cluster_ports[0]}"
# Each store as label=STORE_URL; the label is what the lines below print.
store_label() { case "$1" in "$cluster_url") echo cluster ;; *) echo "${1%%:*}" ;; esac; }
echo
echo "== key-value store: operations (one process, $((BATCH * 5)) each; cluster: 3 primaries, a replica each, WAIT per write) =="
for url in "$sqlite_url" "$redis_url" "$rediss_url" "$cluster_url"; do
  rm -f "$out"/bench-store.db*
  "${store_tls[@]}" "$BIN/store-stress" bench "$url" $((BATCH * 5)) | while read -r line; do
    printf '  %-8s %-36s %9s /s  %7s us\n' "$(store_label "$url")" "$(sed -n 's/.*"operation": "\([^"]*\)".*/\1/p' <<<"$line")" \
      "$(field per_second <<<"$line")" "$(field microseconds_each <<<"$line")"
  done
done
printf '  %-8s %-36s %9s /s  (the floor: redis-benchmark GET, one connection)\n' redis "loopback round trip" \
  "$(redis-benchmark -p "$redis_port" -t get -n 20000 -c 1 -q 2>/dev/null | tr '\r' '\n' | awk '/requests per second/ { print $2 }' | tail -1)"
printf '  %-8s %-36s %9s /s  (the floor: redis-benchmark --tls GET, one connection)\n' rediss "loopback round trip" \
  "$(redis-benchmark -p "$tls_port" --tls --cacert "$tls/ca.pem" -t get -n 20000 -c 1 -q 2>/dev/null | tr '\r' '\n' | awk '/requests per second/ { print $2 }' | tail -1)"
echo "== key-value store: opening it in a fresh process (median of $RUNS) =="
"$BIN/store-stress" open "$sqlite_url" >/dev/null
for url in "$sqlite_url" "$redis_url" "$rediss_url" "$cluster_url"; do
  opened=$("${store_tls[@]}" "$timer" -n "$RUNS" -w 10 -- "$BIN/store-stress" open "$url")
  bare=$("$timer" -n "$RUNS" -w 10 -x 64 -- "$BIN/store-stress")
  printf '  %-8s process that opens the store %8s us; the same binary doing nothing %8s us\n' "$(store_label "$url")" \
    "$(field median_us <<<"$opened")" "$(field median_us <<<"$bare")"
done

# ---------------------------------------------------------------------------------------
# Notifications (issue "Notifications V2 to entitlements"): the webhook through lighttpd with
# wrk, and the worker, on both backends.
NOTIFICATIONS=${NOTIFICATIONS:-3000}
echo
echo "== webhook through lighttpd (CGI), wrk 10 s, 8 connections; worker over the queued notifications =="
for i in $(seq 1 "$NOTIFICATIONS"); do
  echo "{\"sign\":\"notification\",\"payload\":{\"notificationType\":\"DID_RENEW\",\"data\":{\"bundleId\":\"com.example.storekeeper\",\"environment\":\"Sandbox\",\"transactionInfo\":$(transaction $((500000 + i)) $((700000 + i))),\"renewalInfo\":{\"originalTransactionId\":\"$((700000 + i))\",\"autoRenewProductId\":\"com.example.pro.monthly\",\"autoRenewStatus\":1,\"environment\":\"Sandbox\"}}}}"
done | "$BIN/simulate-store" 2>/dev/null | sed 's/"signedData"/"signedPayload"/' > "$out/notifications.ndjson"
for url in "$sqlite_url" "$redis_url"; do
  rm -f "$out"/bench-store.db*
  redis-cli -p "$redis_port" flushall >/dev/null
  STORE_URL=$url APPSTORE_ONLINE_CHECKS=off infra/gateway/gateway.sh start "$BIN" 18580 "$out/gateway"
  WRK_BODIES="$out/notifications.ndjson" wrk -t1 -c8 -d10s --latency -s bench/webhook.lua http://127.0.0.1:18580 > "$out/wrk.txt" 2>&1 || true
  infra/gateway/gateway.sh stop "$out/gateway"
  rps=$(awk '/Requests\/sec/ { print $2 }' "$out/wrk.txt")
  p50=$(awk '$1 == "50%" { print $2 }' "$out/wrk.txt")
  p99=$(awk '$1 == "99%" { print $2 }' "$out/wrk.txt")
  non2xx=$(awk '/Non-2xx/ { print $NF }' "$out/wrk.txt")
  printf '  %-8s webhook %8s requests/s   p50 %8s   p99 %8s   non-2xx %s\n' "${url%%:*}" "$rps" "$p50" "$p99" "${non2xx:-0}"
  # The queue now holds what wrk delivered: half of it for one worker, the rest for four
  # workers side by side (leases let any number share a queue; on Redis a worker waits on
  # round trips more than on the CPU).
  for workers in 1 4; do
    budget=$([ "$workers" -eq 1 ] && echo 0.25 || echo 30)
    start=$(date +%s%N)
    worker_pids=()
    for n in $(seq 1 "$workers"); do
      echo "{\"budgetSeconds\": $budget}" | STORE_URL=$url "$BIN/process-notifications" 2>/dev/null > "$out/worker-$n.json" &
      worker_pids+=($!)
    done
    wait "${worker_pids[@]}"
    elapsed_us=$(( ($(date +%s%N) - start) / 1000 ))
    done_count=0
    events_count=0
    events_ms=0
    for file in "$out"/worker-*.json; do
      done_count=$(( done_count + $(field applied < "$file") + $(field stale < "$file") + $(field duplicate < "$file") ))
      events_count=$(( events_count + $(field events < "$file") ))
      events_ms=$(awk -v a="$events_ms" -v b="$(field eventMilliseconds < "$file")" 'BEGIN { print a + b }')
    done
    rm -f "$out"/worker-*.json
    printf '  %-8s %d worker(s) %7s notifications in %5s ms = %s notifications/s\n' "${url%%:*}" "$workers" "$done_count" \
      "$((elapsed_us / 1000))" "$(awk -v n="$done_count" -v t="$elapsed_us" 'BEGIN { printf "%.0f", (t > 0 ? n * 1000000 / t : 0) }')"
    # What the event log adds per notification: relaying its event (the customer's state read,
    # the append), as the worker times it; the outbox itself rides in the record's write.
    printf '  %-8s %d worker(s) events: %s in the log, relaying them %s ms = %s us per notification (%s%% of the run)\n' \
      "${url%%:*}" "$workers" "$events_count" "$events_ms" \
      "$(awk -v ms="$events_ms" -v n="$done_count" 'BEGIN { printf "%.0f", (n > 0 ? ms * 1000 / n : 0) }')" \
      "$(awk -v ms="$events_ms" -v w="$workers" -v t="$elapsed_us" 'BEGIN { printf "%.0f", (t > 0 ? ms * 1000 / w * 100 / t : 0) }')"
  done
done
echo "  targets: webhook >= 200 requests/s with p99 < 50 ms; worker >= 2,000 notifications/s on Redis"

source bench/webhooks.sh
webhooks_bench
source bench/metrics.sh
metrics_bench
dashboard_bench

# Slow clients (issue "Hardening"): 300 connections trickling a body a byte a second, held
# while webhook deliveries are timed one after another (curl, a fresh connection each); then
# the trickle stops and the server is to close them all after its read idle timeout.
SLOW=${SLOW:-300}
DELIVERIES=${DELIVERIES:-20}
echo "== webhook through lighttpd while $SLOW slow clients trickle a body (SQLite, $DELIVERIES deliveries) =="
rm -f "$out"/bench-store.db* "$out/slow-stop"
STORE_URL=$sqlite_url APPSTORE_ONLINE_CHECKS=off infra/gateway/gateway.sh start "$BIN" 18580 "$out/gateway"
python3 Tests/Support/http/slow_clients.py --port 18580 --count "$SLOW" --interval 1 --stop-file "$out/slow-stop" \
  --hold-at-most 300 --wait-closed 30 > "$out/slow-clients.ndjson" 2>/dev/null &
slow_pid=$!
for _ in $(seq 1 600); do grep -q '"open"' "$out/slow-clients.ndjson" 2>/dev/null && break; sleep 0.1; done
head -n "$DELIVERIES" "$out/notifications.ndjson" | while read -r body; do
  curl -s -o /dev/null -m 30 -w '%{time_total} %{http_code}\n' -H 'Content-Type: application/json' \
    --data-binary @- http://127.0.0.1:18580/appstore/notifications <<<"$body" || true
done > "$out/slow-webhook.txt"
touch "$out/slow-stop"
wait "$slow_pid" || true
slow_pid=
infra/gateway/gateway.sh stop "$out/gateway"
sort -n "$out/slow-webhook.txt" | awk -v slow="$SLOW" -v closed="$(field closedAfterSilence < "$out/slow-clients.ndjson")" \
    -v held="$(field opened < "$out/slow-clients.ndjson" | head -1)" -v quiet="$(field secondsToLastClose < "$out/slow-clients.ndjson")" '
  { t[NR] = $1; if ($2 != 200) bad++ }
  END {
    median = t[int((NR + 1) / 2)]; worst = t[NR]
    printf "  sqlite   webhook answer time   median %.3f s   max %.3f s   non-200 %d   (%s of %d slow connections held)\n", median, worst, bad, held, slow
    printf "  sqlite   slow connections closed by the server once quiet: %s of %s, the last after %s s\n", (closed == "" ? 0 : closed), held, (quiet == "" ? "-" : quiet)
    printf "  target: webhook answered in under 2 s while they are held   %s\n", (NR > 0 && worst < 2 && bad == 0 ? "met" : "MISSED")
  }'

# ---------------------------------------------------------------------------------------
# The request-path functions of the later issues, each a process per request on the SQLite
# default: who is signed in (an identity token checked against Apple's keys cached in the
# store), what a user may use (get-entitlements by user id), and an old app's receipt read
# and verified (a dry run of migrate-receipt).
echo
echo "== later issues: whole process, median of $RUNS runs =="
export STORE_URL="sqlite:$out/later-store.db"
rm -f "$out"/later-store.db*
# get-entitlements for a user with one subscription, ingested once.
echo "{\"sign\":\"transaction\",\"payload\":$(transaction 900001 900000)}" | "$BIN/simulate-store" 2>/dev/null \
  | sed 's/"signedData"/"jwsRepresentation"/; s/}$/,"userId":"bench-user"}/' | APPSTORE_ONLINE_CHECKS=off "$BIN/ingest-transaction" >/dev/null 2>&1
echo '{"userId":"bench-user"}' > "$out/entitlements-request.json"
grep -q '"active":true' <("$BIN/get-entitlements" < "$out/entitlements-request.json" 2>/dev/null) \
  || { echo "get-entitlements did not find the bench user's subscription" >&2; exit 1; }
entitlements=$("$timer" -n "$RUNS" -w 20 -i "$out/entitlements-request.json" -- "$BIN/get-entitlements" | tee "$out/get-entitlements.json")
printf '  %-44s %8s us  (peak RSS %s KiB)\n' "get-entitlements, one user" "$(field median_us <<<"$entitlements")" "$(field max_rss_kib <<<"$entitlements")"

# siwa-verify-token against the fake Apple ID server's keys, fetched once and then read from
# the store: the steady state.
python3 Tests/Support/fakes/fake_apple_id.py --port-file "$out/apple-id.port" --team-id BENCHTEAM1 --key-id BENCHKEY01 \
  --client-ids com.example.web --client-key-pub Tests/Fixtures/pki/siwa-key.pub.pem \
  --signing-key Tests/Fixtures/pki/appleid-rsa.key >/dev/null 2>&1 &
apple_id_pid=$!
for _ in $(seq 1 50); do [ -s "$out/apple-id.port" ] && break; sleep 0.1; done
apple_id="http://127.0.0.1:$(cat "$out/apple-id.port")"
token=$(curl -s -X POST -H 'Content-Type: application/json' -d '{}' "$apple_id/control/token" | sed -n 's/.*"token": *"\([^"]*\)".*/\1/p')
echo "{\"identityToken\":\"$token\"}" > "$out/identity-token.json"
export SIWA_CLIENT_IDS=com.example.web SIWA_BASE_URL=$apple_id
grep -q '"valid":true' <("$BIN/siwa-verify-token" < "$out/identity-token.json" 2>/dev/null) \
  || { kill -9 "$apple_id_pid"; wait "$apple_id_pid" 2>/dev/null; echo "the bench identity token does not verify" >&2; exit 1; }
siwa=$("$timer" -n "$RUNS" -w 20 -i "$out/identity-token.json" -- "$BIN/siwa-verify-token" | tee "$out/siwa-verify-token.json")
kill -9 "$apple_id_pid" 2>/dev/null || true
wait "$apple_id_pid" 2>/dev/null || true
rm -f "$out/apple-id.port"
printf '  %-44s %8s us  (peak RSS %s KiB)\n' "siwa-verify-token, keys cached in the store" "$(field median_us <<<"$siwa")" "$(field max_rss_kib <<<"$siwa")"

# migrate-receipt: a receipt with several purchases, read and verified, nothing asked.
printf '{"receiptData":"%s","dryRun":true}' "$(tr -d '\n' < Tests/Fixtures/receipts/receipt-several.b64)" > "$out/receipt-request.json"
receipt=$(APPSTORE_RECEIPT_ROOT_CERTS=Tests/Fixtures/receipts/pki/receipt-root.pem "$timer" -n "$RUNS" -w 20 -i "$out/receipt-request.json" -- "$BIN/migrate-receipt" | tee "$out/migrate-receipt.json")
printf '  %-44s %8s us  (peak RSS %s KiB)\n' "migrate-receipt, dry run of 4 purchases" "$(field median_us <<<"$receipt")" "$(field max_rss_kib <<<"$receipt")"

# sign-offer (issue 16): one signature per process, each kind, with the test PKI's subscription
# offer key; no store is opened (no check asked for).
offer_kinds=(
  'promotionalOffer|{"kind":"promotionalOffer","productId":"com.example.pro.monthly","offerId":"spring","appAccountToken":"8e1a2f47-0c55-4c0b-9a3e-5d7b6c1f2e90"}'
  'promotionalOfferV2|{"kind":"promotionalOfferV2","productId":"com.example.pro.monthly","offerId":"spring","transactionId":"2000000123"}'
  'introductoryOfferEligibility|{"kind":"introductoryOfferEligibility","productId":"com.example.pro.yearly","allowIntroductoryOffer":false,"transactionId":"2000000123"}'
  'advancedCommerceInApp|{"kind":"advancedCommerceInApp","request":{"operation":"CREATE_ONE_TIME_CHARGE","version":"1","currency":"USD","taxCode":"C003-00-2","requestInfo":{"requestReferenceId":"3c0f2d5e-9b1a-4f6e-8a2d-7c4b1e0f9a63"},"item":{"SKU":"BOOK_0001","displayName":"A book","description":"One book","price":4990}}}'
)
export APPSTORE_OFFER_KEY_ID=BENCHOFFER APPSTORE_OFFER_PRIVATE_KEY=Tests/Fixtures/pki/subscription-offer-key.p8 \
  APPSTORE_ISSUER_ID=57246542-96fe-1a63-e053-0824d011072a
for entry in "${offer_kinds[@]}"; do
  kind=${entry%%|*}
  echo "${entry#*|}" > "$out/sign-offer-$kind.json"
  grep -q '"signature"' <("$BIN/sign-offer" < "$out/sign-offer-$kind.json" 2>/dev/null) \
    || { echo "sign-offer did not sign the bench $kind" >&2; exit 1; }
  offer=$("$timer" -n "$RUNS" -w 20 -i "$out/sign-offer-$kind.json" -- "$BIN/sign-offer" | tee "$out/sign-offer-$kind.timing.json")
  printf '  %-44s %8s us  (peak RSS %s KiB)\n' "sign-offer, $kind" "$(field median_us <<<"$offer")" "$(field max_rss_kib <<<"$offer")"
done
unset APPSTORE_OFFER_KEY_ID APPSTORE_OFFER_PRIVATE_KEY APPSTORE_ISSUER_ID

# retention-message (issue 16): Apple's realtime requests through nginx + FastCGI and lighttpd + CGI.
source bench/retention.sh
retention_bench

# ---------------------------------------------------------------------------------------
# Peak memory (issue "Speed"): every function, one request per process. Each function's golden
# examples are its requests, with the heavier requests timed above folded in.
echo
echo "== peak memory of every function, one request per process (its examples and the requests above) =="
cat "$out/verify-notification.json" "$out/get-entitlements.json" "$out/siwa-verify-token.json" "$out/migrate-receipt.json" \
  > "$out/request-peaks.ndjson"
python3 bench/memory.py "$BIN" "$timer" "$out" "$out/request-peaks.ndjson"

# ---------------------------------------------------------------------------------------
# FastCGI (issue "Speed"): nginx + FastCGI against lighttpd + CGI, and memory over many requests.
source bench/fastcgi.sh
fastcgi_bench
