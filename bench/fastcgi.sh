# Sourced by bench/run.sh (issue "Speed", the FastCGI half): the webhook and get-entitlements
# through nginx with FastCGI, next to the same runs through lighttpd with CGI, on SQLite and
# on Redis; then one FastCGI process's memory over many requests. Uses run.sh's $BIN, $out,
# $sqlite_url, $redis_url, $redis_port and transaction(). Everything here is in functions so
# that run.sh calls it with one line.
FASTCGI_PORT=18581
FASTCGI_SECONDS=${FASTCGI_SECONDS:-10}
# Distinct notifications: a run at the target rate for FASTCGI_SECONDS must never cycle back
# to one already stored (a duplicate is a cheaper answer than a delivery).
FASTCGI_NOTIFICATIONS=${FASTCGI_NOTIFICATIONS:-60000}
# How long the memory run lasts; a million requests at ~5,000/s is FASTCGI_MEMORY_SECONDS=200.
FASTCGI_MEMORY_SECONDS=${FASTCGI_MEMORY_SECONDS:-30}

fastcgi_cleanup() {
  infra/nginx/nginx.sh stop "$out/nginx" 2>/dev/null || true
  infra/gateway/gateway.sh stop "$out/gateway" 2>/dev/null || true
}

# $1 = a name for the file, then wrk's arguments. Prints "requests/s p50 p99 non-2xx".
fastcgi_wrk() {
  local name=$1; shift
  wrk -t1 -c8 -d"${FASTCGI_SECONDS}s" --latency "$@" > "$out/wrk-$name.txt" 2>&1 || true
  awk '/Requests\/sec/ { rps = $2 } $1 == "50%" { p50 = $2 } $1 == "99%" { p99 = $2 } /Non-2xx/ { bad = $NF }
       END { printf "%s %s %s %s\n", rps, p50, p99, (bad == "" ? 0 : bad) }' "$out/wrk-$name.txt"
}

# wrk's latency (850.00us, 3.21ms, 1.02s) in milliseconds.
fastcgi_ms() {
  awk -v t="$1" 'BEGIN { v = t + 0; if (t ~ /us$/) v /= 1000; else if (t ~ /ms$/) v += 0; else if (t ~ /s$/) v *= 1000; printf "%.2f", v }'
}

# $1 = gateway (nginx|cgi), $2 = store URL, $3 = what (webhook|entitlements). Starts the
# gateway on a fresh store, runs wrk, stops it; prints wrk's figures.
fastcgi_run() {
  local gateway=$1 url=$2 what=$3
  rm -f "$out"/bench-store.db*
  redis-cli -p "$redis_port" flushall >/dev/null
  export STORE_URL=$url APPSTORE_ONLINE_CHECKS=off STOREKEEPER_ADMIN_TOKEN=bench-admin-token
  if [ "$what" = entitlements ]; then
    echo "{\"sign\":\"transaction\",\"payload\":$(transaction 900001 900000)}" | "$BIN/simulate-store" 2>/dev/null \
      | sed 's/"signedData"/"jwsRepresentation"/; s/}$/,"userId":"bench-user"}/' | "$BIN/ingest-transaction" >/dev/null 2>&1
  fi
  if [ "$gateway" = nginx ]; then
    infra/nginx/nginx.sh start "$BIN" "$FASTCGI_PORT" "$out/nginx"
  else
    infra/gateway/gateway.sh start "$BIN" "$FASTCGI_PORT" "$out/gateway"
  fi
  if [ "$what" = webhook ]; then
    WRK_BODIES="$out/fcgi-notifications.ndjson" fastcgi_wrk "$gateway-${url%%:*}-$what" -s bench/webhook.lua "http://127.0.0.1:$FASTCGI_PORT"
  else
    fastcgi_wrk "$gateway-${url%%:*}-$what" -H "Authorization: Bearer bench-admin-token" \
      "http://127.0.0.1:$FASTCGI_PORT/entitlements?userId=bench-user"
  fi
  if [ "$gateway" = nginx ]; then infra/nginx/nginx.sh stop "$out/nginx"; else infra/gateway/gateway.sh stop "$out/gateway"; fi
  unset STOREKEEPER_ADMIN_TOKEN
}

fastcgi_verdict() { # $1 = condition (awk), prints met or MISSED
  awk "BEGIN { print (($1) ? \"met\" : \"MISSED\") }"
}

fastcgi_throughput() {
  echo
  echo "== nginx + FastCGI against lighttpd + CGI: wrk ${FASTCGI_SECONDS} s, 8 connections, ${FASTCGI_CHILDREN:-2} processes per function =="
  # Distinct signed notifications, written by awk and signed by one simulate-store process.
  awk -v n="$FASTCGI_NOTIFICATIONS" -v now="$(( $(date +%s) * 1000 ))" 'BEGIN {
    for (i = 1; i <= n; i++) {
      t = sprintf("{\"transactionId\":\"%d\",\"originalTransactionId\":\"%d\",\"bundleId\":\"com.example.storekeeper\",\"productId\":\"com.example.pro.monthly\",\"type\":\"Auto-Renewable Subscription\",\"purchaseDate\":%d,\"expiresDate\":%d,\"environment\":\"Sandbox\",\"inAppOwnershipType\":\"PURCHASED\"}", 5000000 + i, 7000000 + i, now, now + 2592000000)
      printf "{\"sign\":\"notification\",\"payload\":{\"notificationType\":\"DID_RENEW\",\"data\":{\"bundleId\":\"com.example.storekeeper\",\"environment\":\"Sandbox\",\"transactionInfo\":%s,\"renewalInfo\":{\"originalTransactionId\":\"%d\",\"autoRenewProductId\":\"com.example.pro.monthly\",\"autoRenewStatus\":1,\"environment\":\"Sandbox\"}}}}\n", t, 7000000 + i
    } }' | "$BIN/simulate-store" 2>/dev/null | sed 's/"signedData"/"signedPayload"/' > "$out/fcgi-notifications.ndjson"
  local what url fast slow
  for what in webhook entitlements; do
    for url in "$sqlite_url" "$redis_url"; do
      read -r fast_rps fast_p50 fast_p99 fast_bad <<<"$(fastcgi_run nginx "$url" "$what")"
      read -r slow_rps slow_p50 slow_p99 slow_bad <<<"$(fastcgi_run cgi "$url" "$what")"
      local p99_ms ratio
      p99_ms=$(fastcgi_ms "$fast_p99")
      ratio=$(awk -v a="$fast_rps" -v b="$slow_rps" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }')
      printf '  %-7s %-12s nginx+FastCGI %8s requests/s  p50 %8s  p99 %8s  non-2xx %s\n' "${url%%:*}" "$what" \
        "$fast_rps" "$fast_p50" "$fast_p99" "$fast_bad"
      printf '  %-7s %-12s lighttpd+CGI  %8s requests/s  p50 %8s  p99 %8s  non-2xx %s\n' "${url%%:*}" "$what" \
        "$slow_rps" "$slow_p50" "$slow_p99" "$slow_bad"
      printf '  %-7s %-12s targets: >= 3,000 requests/s %s; p99 <= 10 ms (%s ms) %s; >= 4x CGI (%sx) %s; all 2xx %s\n' \
        "${url%%:*}" "$what" "$(fastcgi_verdict "$fast_rps >= 3000")" "$p99_ms" "$(fastcgi_verdict "$p99_ms <= 10")" \
        "$ratio" "$(fastcgi_verdict "$ratio >= 4")" "$(fastcgi_verdict "$fast_bad == 0")"
    done
  done
}

# One FastCGI process of get-entitlements behind nginx: its resident memory after the first
# 10,000 requests and after FASTCGI_MEMORY_SECONDS more of them. Flat means nothing of one
# request stays behind.
fastcgi_memory() {
  echo
  echo "== one FastCGI process's memory over many requests (get-entitlements, SQLite) =="
  rm -f "$out"/bench-store.db*
  export STORE_URL=$sqlite_url APPSTORE_ONLINE_CHECKS=off STOREKEEPER_ADMIN_TOKEN=bench-admin-token
  echo "{\"sign\":\"transaction\",\"payload\":$(transaction 900001 900000)}" | "$BIN/simulate-store" 2>/dev/null \
    | sed 's/"signedData"/"jwsRepresentation"/; s/}$/,"userId":"bench-user"}/' | "$BIN/ingest-transaction" >/dev/null 2>&1
  FASTCGI_CHILDREN=1 infra/nginx/nginx.sh start "$BIN" "$FASTCGI_PORT" "$out/nginx"
  local pid url count rss_first rss_last served_first served_last
  pid=$(pgrep -f -n "^$BIN/get-entitlements" || true)
  url="http://127.0.0.1:$FASTCGI_PORT/entitlements?userId=bench-user"
  count=0
  while [ "$count" -lt 10000 ]; do
    wrk -t1 -c4 -d2s -H "Authorization: Bearer bench-admin-token" "$url" >/dev/null 2>&1 || true
    count=$(wc -l < "$out/nginx/access.log")
  done
  served_first=$count rss_first=$(awk '/VmRSS/ { print $2 }' "/proc/$pid/status")
  wrk -t1 -c4 -d"${FASTCGI_MEMORY_SECONDS}s" -H "Authorization: Bearer bench-admin-token" "$url" >/dev/null 2>&1 || true
  served_last=$(wc -l < "$out/nginx/access.log") rss_last=$(awk '/VmRSS/ { print $2 }' "/proc/$pid/status")
  infra/nginx/nginx.sh stop "$out/nginx"
  unset STOREKEEPER_ADMIN_TOKEN
  printf '  RSS after %s requests: %s KiB; after %s requests: %s KiB\n' "$served_first" "$rss_first" "$served_last" "$rss_last"
  printf '  target: flat (grows by at most 1 MiB) %s\n' "$(fastcgi_verdict "$rss_last - $rss_first <= 1024")"
}

fastcgi_bench() {
  # run.sh's own cleanup (Redis, lighttpd) still runs at exit, after nginx is stopped.
  trap 'fastcgi_cleanup; cleanup' EXIT
  fastcgi_throughput
  fastcgi_memory
}
