#!/usr/bin/env bash
# The container's entry point: the gateway. Every function with a route runs on its Unix socket
# (FASTCGI_CHILDREN processes each, default 2, by spawn-fcgi) and nginx serves them on
# GATEWAY_LISTEN (default 0.0.0.0:8080), exactly as infra/nginx/nginx.sh starts them for
# `make serve`: configuration from this process's environment (only the variables the functions
# name), nothing written to disk but nginx's configuration, which holds no secret. The functions'
# JSON log lines and nginx's errors go to stdout, for the container's log.
#
# SIGTERM or SIGINT (`docker stop`): nginx stops, each function finishes the request it is
# answering, exit 0. If nginx ends by itself, so does the container (exit 1).
#
# Outside an image (the tests) STOREKEEPER_BIN_DIR and GATEWAY_STATE_DIR say where the binaries are
# and where the sockets go; in the image they are /opt/storekeeper/bin and /tmp/storekeeper-gateway.
set -euo pipefail
home=$(cd "$(dirname "$0")/../.." && pwd)
bin=${STOREKEEPER_BIN_DIR:-$home/bin}
state=${GATEWAY_STATE_DIR:-/tmp/storekeeper-gateway}
listen=${GATEWAY_LISTEN:-0.0.0.0:8080}
nginx_sh="$home/infra/nginx/nginx.sh"

mkdir -p "$state"
: > "$state/functions.log"
tail -q -n +1 -F "$state/functions.log" "$state/nginx-error.log" 2>/dev/null &
tail_pid=$!
stopped=0
# A process that exited but was not reaped yet (PID 1 reaps what spawn-fcgi left) is gone too.
alive() {
  local status
  status=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
  [ "${status:0:1}" != Z ]
}
stop() {
  stopped=1
  "$nginx_sh" stop "$state"
  kill "$tail_pid" 2>/dev/null || true
  exit 0
}
trap stop TERM INT
"$nginx_sh" start "$bin" "$listen" "$state" || { kill "$tail_pid" 2>/dev/null; exit 1; }
echo "storekeeper: serving on $listen" >&2
# `sleep & wait`: the trap runs as soon as a signal arrives, not after a whole sleep.
while [ $stopped -eq 0 ] && alive "$(cat "$state/gateway.pid")"; do
  sleep 1 & wait $! || true
done
echo "storekeeper: nginx ended" >&2
"$nginx_sh" stop "$state"
kill "$tail_pid" 2>/dev/null || true
exit 1
