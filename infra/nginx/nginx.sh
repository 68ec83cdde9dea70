#!/usr/bin/env bash
# Starts or stops nginx in front of the function binaries over FastCGI on 127.0.0.1.
# usage: nginx.sh start BIN_DIR PORT STATE_DIR   |   nginx.sh stop STATE_DIR
# PORT may be ADDRESS:PORT (0.0.0.0:8080 in a container: infra/container/entrypoint.sh).
#
# Each function with a route runs as FASTCGI_CHILDREN (default 2) long-running processes on
# one Unix socket STATE_DIR/<name>.sock, started by spawn-fcgi, with only the variables the
# functions name (function.json, plus the runtime's own) in their environment: read once at
# their start, from this script's environment, never written to disk. nginx's configuration
# (render-config.sh) holds no secret. The functions' JSON log lines go to STATE_DIR/functions.log.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

variables() {
  { jq -r '.environment.required[], .environment.optional[]' "$root"/functions/*/function.json
    printf '%s\n' STORE_URL STOREKEEPER_ADMIN_TOKEN STOREKEEPER_LOG_LEVEL STOREKEEPER_NOW STOREKEEPER_CA_BUNDLE PATH
  } | sort -u
}

start_functions() {
  local bin=$1 state=$2 children=${FASTCGI_CHILDREN:-2}
  local environment=()
  while read -r name; do
    [ -n "$name" ] && [ -n "${!name+x}" ] && environment+=("$name=${!name}")
  done < <(variables)
  : > "$state/functions.pid"
  for manifest in "$root"/functions/*/function.json; do
    local route name
    route=$(jq -r '.route // empty' "$manifest")
    name=$(jq -r '.name' "$manifest")
    [ -n "$route" ] || continue
    # spawn-fcgi hands each child the socket as stdin and /dev/null as stdout and stderr: the
    # shell in between sends stderr (the JSON log) to the shared log file, then becomes the
    # function (exec keeps stdin, the socket).
    env -i "${environment[@]}" spawn-fcgi -s "$state/$name.sock" -M 0600 -F "$children" -d "$root" \
      -P "$state/$name.pids" -- /bin/sh -c 'exec "$0" 2>>"$1"' "$bin/$name" "$state/functions.log" >/dev/null
    # One PID a line; spawn-fcgi ends its file without a newline, so `cat` alone would join
    # this function's last PID to the next function's first, and stop would miss both.
    printf '%s\n' $(cat "$state/$name.pids") >> "$state/functions.pid"
    rm -f "$state/$name.pids"
  done
}

# A process that exited but that nobody reaped yet (a container whose PID 1 does not reap
# what spawn-fcgi left it) is a zombie: gone, though `kill -0` still finds it.
running() {
  local state
  state=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
  [ "${state:0:1}" != Z ]
}

stop_pids() {
  local file=$1
  [ -f "$file" ] || return 0
  local pids
  pids=$(cat "$file")
  # SIGTERM: each finishes the request it is answering, then exits.
  for pid in $pids; do kill "$pid" 2>/dev/null || true; done
  for pid in $pids; do
    for _ in $(seq 1 100); do running "$pid" || break; sleep 0.05; done
  done
  rm -f "$file"
}

case "${1:-}" in
  start)
    bin=$(cd "$2" && pwd) port=$3 state=$4
    mkdir -p "$state/tmp"
    chmod 700 "$state"
    state=$(cd "$state" && pwd)
    start_functions "$bin" "$state"
    (umask 077 && "$here/render-config.sh" "$port" "$state" > "$state/nginx.conf")
    nginx -t -q -e "$state/nginx-error.log" -c "$state/nginx.conf"
    (exec nginx -e "$state/nginx-error.log" -c "$state/nginx.conf" </dev/null >>"$state/functions.log" 2>&1) &
    echo $! > "$state/gateway.pid"
    host=127.0.0.1
    case "$port" in *:*) host=${port%:*}; port=${port##*:} ;; esac
    case "$host" in 0.0.0.0|'[::]'|'*') host=127.0.0.1 ;; esac
    for _ in $(seq 1 100); do
      if (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null; then exit 0; fi
      sleep 0.05
    done
    echo "nginx did not start; see $state/nginx-error.log" >&2
    exit 1
    ;;
  stop)
    state=$2
    stop_pids "$state/gateway.pid"
    stop_pids "$state/functions.pid"
    rm -f "$state/nginx.conf" "$state"/*.sock
    ;;
  *)
    echo "usage: nginx.sh start BIN_DIR PORT STATE_DIR | stop STATE_DIR" >&2
    exit 64
    ;;
esac
