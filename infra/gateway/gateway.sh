#!/usr/bin/env bash
# Starts or stops lighttpd serving the function binaries as CGI (the default) or over FastCGI
# (lighttpd starts and supervises the function processes) on 127.0.0.1.
# usage: gateway.sh start BIN_DIR PORT STATE_DIR [cgi|fastcgi]   |   gateway.sh stop STATE_DIR
#
# The rendered configuration names the functions' variables as env.NAME, so lighttpd is
# started with this script's environment and reads the secrets from it; the file itself
# holds none. It is still written 0600 in a 0700 state folder and removed at stop.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
case "${1:-}" in
  start)
    bin=$2 port=$3 state=$4 mode=${5:-cgi}
    mkdir -p "$state"
    chmod 700 "$state"
    (umask 077 && "$here/render-config.sh" "$bin" "$port" "$state" "$mode" > "$state/lighttpd.conf")
    lighttpd -tt -f "$state/lighttpd.conf" >/dev/null
    # In the foreground (-D) but in the background of this shell, with stderr kept: lighttpd
    # hands its own stderr to the CGI processes, and that is where the functions' JSON log
    # lines go. A daemonised lighttpd would send them to /dev/null.
    (cd "$here/../.." && exec lighttpd -D -f "$state/lighttpd.conf" </dev/null >>"$state/functions.log" 2>&1) &
    echo $! > "$state/gateway.pid"
    for _ in $(seq 1 100); do
      if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then exit 0; fi
      sleep 0.05
    done
    echo "lighttpd did not start; see $state/functions.log" >&2
    exit 1
    ;;
  stop)
    state=$2
    for pidfile in "$state/gateway.pid" "$state/lighttpd.pid"; do
      if [ -f "$pidfile" ]; then
        pid=$(cat "$pidfile")
        kill "$pid" 2>/dev/null || true
        # lighttpd is not this shell's child: poll until it is gone (SIGTERM ends it at once;
        # the bound only keeps a stuck one from hanging the caller).
        for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
        rm -f "$pidfile"
      fi
    done
    rm -f "$state/lighttpd.conf" "$state"/*.sock*
    ;;
  *)
    echo "usage: gateway.sh start BIN_DIR PORT STATE_DIR [cgi|fastcgi] | stop STATE_DIR" >&2
    exit 64
    ;;
esac
