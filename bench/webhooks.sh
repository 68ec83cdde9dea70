# Sourced by bench/run.sh (issue 15, "Events out"): events delivered per second by one
# deliver-events process (one pass, `{}`) to a loopback receiver that verifies every
# signature with standardwebhooks (Tests/Support/fakes/webhook_receiver.py), on SQLite and on
# Redis. The log is filled first by store-stress fill-events, as the relay appends events.
# Uses run.sh's $BIN, $out, $sqlite_url, $redis_url and $redis_port.
WEBHOOK_EVENTS=${WEBHOOK_EVENTS:-5000}
WEBHOOK_SECRET=whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw

webhooks_bench() {
  echo
  echo "== deliver-events: $WEBHOOK_EVENTS events over 100 customers, one process, one pass, to a loopback receiver =="
  local receiver_dir receiver_pid port url
  receiver_dir=$(mktemp -d)
  PYTHONPATH=var/python python3 Tests/Support/fakes/webhook_receiver.py --port-file "$receiver_dir/port" \
    --log "$receiver_dir/deliveries.log" --control "$receiver_dir/control.json" --secret "/hooks=$WEBHOOK_SECRET" \
    2>"$receiver_dir/stderr.log" &
  receiver_pid=$!
  for _ in $(seq 1 200); do [ -f "$receiver_dir/port" ] && break; sleep 0.05; done
  port=$(cat "$receiver_dir/port" 2>/dev/null || echo 0)
  for url in "$sqlite_url" "$redis_url"; do
    rm -f "$out"/bench-store.db* "$receiver_dir/deliveries.log"
    redis-cli -p "$redis_port" flushall >/dev/null
    "$BIN/store-stress" fill-events "$url" "$WEBHOOK_EVENTS" 100
    local start elapsed_us delivered verified
    start=$(date +%s%N)
    echo '{"budgetSeconds": 600}' | STORE_URL=$url STOREKEEPER_WEBHOOK_URL="http://127.0.0.1:$port/hooks" \
      STOREKEEPER_WEBHOOK_SECRET=$WEBHOOK_SECRET "$BIN/deliver-events" 2>/dev/null > "$out/deliver.json" || true
    elapsed_us=$(( ($(date +%s%N) - start) / 1000 ))
    delivered=$(sed -n 's/^{"delivered":\([0-9]*\),.*/\1/p' "$out/deliver.json")
    verified=$(grep -c '"verified": true' "$receiver_dir/deliveries.log" || true)
    printf '  %-8s %6s events in %6s ms = %s events/s (%s verified by the receiver)\n' "${url%%:*}" "${delivered:-0}" \
      "$((elapsed_us / 1000))" "$(awk -v n="${delivered:-0}" -v t="$elapsed_us" 'BEGIN { printf "%.0f", (t > 0 ? n * 1000000 / t : 0) }')" \
      "$verified"
  done
  kill "$receiver_pid" 2>/dev/null || true
  wait "$receiver_pid" 2>/dev/null || true
  rm -rf "$receiver_dir"
}
