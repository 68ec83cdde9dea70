# Sourced by bench/run.sh (issue 17, the metrics): the aggregator counting an event log of
# METRICS_EVENTS events (default 20,000, over a quarter as many customers, each event with a
# customer state as the relay attaches it) on SQLite, then one scrape (`metrics`, median of
# $RUNS processes) once it is counted: what Prometheus pays, whatever the number of customers.
# Uses run.sh's $BIN, $out, $timer, $RUNS and field().
METRICS_EVENTS=${METRICS_EVENTS:-20000}

metrics_bench() {
  echo
  echo "== metrics: the aggregator over $METRICS_EVENTS events, then a scrape (SQLite) =="
  local url="sqlite:$out/metrics-store.db" counted scrape
  rm -f "$out"/metrics-store.db*
  "$BIN/store-stress" fill-customer-events "$url" "$METRICS_EVENTS" $((METRICS_EVENTS / 4))
  counted=$("$BIN/store-stress" metrics-catch-up "$url")
  printf '  aggregator: %s events in %s ms\n' "$(field events <<<"$counted")" "$(field milliseconds <<<"$counted")"
  echo '{}' > "$out/metrics-request.json"
  scrape=$(STORE_URL=$url "$timer" -n "$RUNS" -w 10 -i "$out/metrics-request.json" -- "$BIN/metrics")
  printf '  one scrape, everything counted: %8s us median  (peak RSS %s KiB)\n' "$(field median_us <<<"$scrape")" \
    "$(field max_rss_kib <<<"$scrape")"
}

# The dashboard's page (issue 17) with DASHBOARD_CUSTOMERS customers (default 100,000, one
# event each) counted: its answer costs what the days shown cost, not what the customers do.
DASHBOARD_CUSTOMERS=${DASHBOARD_CUSTOMERS:-100000}

dashboard_bench() {
  echo
  echo "== dashboard: the default page with $DASHBOARD_CUSTOMERS customers in the store (SQLite) =="
  local url="sqlite:$out/dashboard-store.db" page
  rm -f "$out"/dashboard-store.db*
  "$BIN/store-stress" fill-customer-events "$url" "$DASHBOARD_CUSTOMERS" "$DASHBOARD_CUSTOMERS" >/dev/null
  "$BIN/store-stress" metrics-catch-up "$url" >/dev/null
  echo '{}' > "$out/dashboard-request.json"
  page=$(STORE_URL=$url "$timer" -n "$RUNS" -w 5 -i "$out/dashboard-request.json" -- "$BIN/dashboard")
  printf '  one page, whole process:      %8s us median  (peak RSS %s KiB)\n' "$(field median_us <<<"$page")" \
    "$(field max_rss_kib <<<"$page")"
}
