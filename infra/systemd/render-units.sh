#!/usr/bin/env bash
# Writes the systemd units that run Storekeeper on one machine, into OUT_DIR:
#
#   storekeeper-<name>.socket   for each function with a route (functions/*/function.json): a Unix
#                               socket SOCKET_DIR/<name>.sock the gateway's group may connect to
#   storekeeper-<name>.service  its function, socket-activated with StandardInput=socket: the
#                               listening socket is its stdin, so it serves FastCGI (the FastCGI
#                               door, README "The function contract"); stdout and stderr (its JSON
#                               log lines) go to the journal; storekeeper-<name>-<n>.service, the
#                               other FASTCGI_CHILDREN processes on the same socket, start with it
#   storekeeper-gateway.service nginx with storekeeper-gateway.nginx.conf (infra/nginx/render-config.sh,
#                               written here too) in front of those sockets, started after them
#   storekeeper-<job>.timer     process-notifications, reconcile, deliver-events, backup-store,
#   storekeeper-<job>.service   each a oneshot service that reads '{}' on stdin, as from cron
#   storekeeper.target          all of the above: `systemctl enable --now storekeeper.target`
#
# The functions run as STOREKEEPER_USER (default storekeeper) in STORE_DIR, with their settings
# (STORE_URL and the secrets) from ENV_FILE, which systemd reads as root before it drops to that
# user: keep it root-owned, mode 0600. No unit holds a secret. nginx runs as GATEWAY_USER (default
# www-data), reads no secret and listens on GATEWAY_LISTEN (default 127.0.0.1:8080; put the TLS
# terminator in front). A STORE_DIR, GATEWAY_STATE_DIR or BACKUP_DIR under /var/lib is made by
# systemd (StateDirectory=); elsewhere it must exist and is made writable (ReadWritePaths=).
#
# usage: render-units.sh BIN_DIR ENV_FILE STORE_DIR SOCKET_DIR OUT_DIR
#   BIN_DIR: the release binaries (make release), ENV_FILE: the settings (NAME=value lines),
#   STORE_DIR: the SQLite folder (default STORE_URL sqlite:STORE_DIR/storekeeper.db; ENV_FILE may
#   name another, a redis:// one), SOCKET_DIR: the sockets' folder (e.g. /run/storekeeper)
# environment: STOREKEEPER_USER, GATEWAY_USER, GATEWAY_GROUP (default: GATEWAY_USER), GATEWAY_LISTEN,
#   GATEWAY_STATE_DIR (default /var/lib/storekeeper-gateway), BACKUP_DIR (default STORE_DIR/backups),
#   NGINX (default: nginx on PATH), FASTCGI_CHILDREN (processes per function, default 2, as nginx.sh)
set -euo pipefail
if [ $# -ne 5 ]; then
  echo "usage: render-units.sh BIN_DIR ENV_FILE STORE_DIR SOCKET_DIR OUT_DIR" >&2
  exit 64
fi
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=$1 env_file=$2 store=$3 sockets=$4 out=$5
for path in "$bin" "$env_file" "$store" "$sockets"; do
  case "$path" in /*) ;; *) echo "render-units.sh: $path is not an absolute path" >&2; exit 64 ;; esac
done
[ -d "$bin" ] || { echo "render-units.sh: no binaries folder $bin" >&2; exit 66; }
user=${STOREKEEPER_USER:-storekeeper}
gateway_user=${GATEWAY_USER:-www-data}
gateway_group=${GATEWAY_GROUP:-$gateway_user}
listen=${GATEWAY_LISTEN:-127.0.0.1:8080}
gateway_state=${GATEWAY_STATE_DIR:-/var/lib/storekeeper-gateway}
backups=${BACKUP_DIR:-$store/backups}
nginx=${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}
children=${FASTCGI_CHILDREN:-2}
case "$children" in [1-9]|[1-9][0-9]) ;; *) echo "render-units.sh: FASTCGI_CHILDREN is 1 to 99, not $children" >&2; exit 64 ;; esac
# Written into units unquoted: systemd would split a space and expand a %, so only plain names.
for value in "$bin" "$env_file" "$store" "$sockets" "$out" "$gateway_state" "$backups" "$nginx" \
             "$user" "$gateway_user" "$gateway_group" "$listen"; do
  case "$value" in
    *[!A-Za-z0-9/._:@+-]*|"") echo "render-units.sh: '$value' has a character systemd would read otherwise (only letters, digits and /._:@+-)" >&2; exit 64 ;;
  esac
done
# Every routed function's binary, before anything is written.
while IFS=$'\t' read -r name route; do
  [ -x "$bin/$name" ] || { echo "render-units.sh: $bin/$name is missing: build the binaries first (make release)" >&2; exit 66; }
done < <(jq -r 'select(.route) | "\(.name)\t\(.route)"' "$root"/functions/*/function.json)
mkdir -p "$out"
out=$(cd "$out" && pwd)
conf="$out/storekeeper-gateway.nginx.conf"
units=()

# StateDirectory= (made and owned by systemd) under /var/lib, ReadWritePaths= elsewhere.
writable() {
  local state=() path
  for path in "$@"; do
    case "$path" in
      /var/lib/?*) state+=("${path#/var/lib/}") ;;
      *) echo "ReadWritePaths=$path" ;;
    esac
  done
  if [ ${#state[@]} -gt 0 ]; then echo "StateDirectory=${state[*]}"; echo "StateDirectoryMode=0700"; fi
}

# What every function needs and nothing more: it reads its files (keys, roots, the catalog)
# anywhere but /home, writes only the store's folder, talks Unix sockets (the gateway, its
# listener), IPv4 and IPv6 (Redis, Apple, OCSP, webhooks), and never gains a privilege.
# Nothing here stops the Swift runtime, OpenSSL, libcurl or libfcgi, loaded with dlopen from
# /usr/lib: no W+X memory (MemoryDenyWriteExecute), no new namespaces, the system-service calls.
hardening() {
  cat <<UNIT
NoNewPrivileges=yes
ProtectSystem=strict
ProtectHome=yes
PrivateTmp=yes
PrivateDevices=yes
ProtectKernelTunables=yes
ProtectKernelModules=yes
ProtectKernelLogs=yes
ProtectControlGroups=yes
ProtectClock=yes
ProtectHostname=yes
RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6
RestrictNamespaces=yes
RestrictRealtime=yes
RestrictSUIDSGID=yes
LockPersonality=yes
MemoryDenyWriteExecute=yes
SystemCallArchitectures=native
SystemCallFilter=@system-service
SystemCallErrorNumber=EPERM
UMask=0077
UNIT
}

# The user, folder and settings of every function process, socket-activated or from a timer.
# Environment= is the default store; the file's STORE_URL, when it has one, wins.
function_service() {
  cat <<UNIT
User=$user
Group=$user
WorkingDirectory=$store
Environment=STORE_URL=sqlite:$store/storekeeper.db
EnvironmentFile=$env_file
StandardOutput=journal
StandardError=journal
CapabilityBoundingSet=
UNIT
  hardening
}

# One FastCGI process of a routed function: name, route, child number (empty: the first, the
# one the socket activates), the other children it starts with it.
fastcgi_service() {
  local name=$1 route=$2 child=$3 siblings=$4 unit
  if [ -z "$child" ]; then
    unit="Wants=network-online.target${siblings:+ $siblings}
PartOf=storekeeper.target"
  else
    unit="Wants=network-online.target
# Started and stopped with the first process (its Wants=), on its socket.
PartOf=storekeeper-$name.service"
  fi
  cat <<UNIT
# Generated by infra/systemd/render-units.sh; do not edit.
[Unit]
Description=Storekeeper $name (FastCGI, $route${child:+, process $child})
Requires=storekeeper-$name.socket
After=storekeeper-$name.socket network-online.target
$unit

[Service]
Type=exec
ExecStart=$bin/$name
# The listening socket as stdin: the function sees SO_ACCEPTCONN on fd 0 and serves FastCGI.
# Only stdin: stdout and stderr (the JSON log) go to the journal, never the socket.
Sockets=storekeeper-$name.socket
StandardInput=socket
$(function_service)
$(writable "$store")
# SIGTERM lets the request in flight finish and be answered, then the process exits 0. The
# longest a request runs is app-store-api's call budget (APPSTORE_API_TIMEOUT_SECONDS, 45 s by
# default; nginx stops waiting after 30 s): 60 s before SIGKILL.
KillSignal=SIGTERM
KillMode=mixed
TimeoutStopSec=60s
# A crash is restarted (the socket keeps its queue meanwhile); a configuration fault (exit 78:
# a missing or bad setting) is not: it would fail the same way again.
Restart=on-failure
RestartSec=1s
RestartPreventExitStatus=78
UNIT
}

routed=()
while IFS=$'\t' read -r name route; do
  routed+=("$name")
  cat > "$out/storekeeper-$name.socket" <<UNIT
# Generated by infra/systemd/render-units.sh; do not edit.
[Unit]
Description=Storekeeper $name: FastCGI socket for $route
PartOf=storekeeper.target

[Socket]
ListenStream=$sockets/$name.sock
# The gateway connects (write permission on the socket), nobody else does.
SocketUser=root
SocketGroup=$gateway_group
SocketMode=0660
DirectoryMode=0755
# One long-running process takes the listening socket and accepts on it itself.
Accept=no
RemoveOnStop=yes

[Install]
WantedBy=sockets.target
UNIT
  # The first process is the one the socket activates; the others (FASTCGI_CHILDREN in all)
  # take the same listening socket (Sockets=) and start with it, so that one slow request (an
  # App Store call) does not hold up the route. Each accepts on the socket by itself.
  siblings=""
  for child in $(seq 2 "$children"); do siblings="$siblings storekeeper-$name-$child.service"; done
  fastcgi_service "$name" "$route" "" "${siblings# }" > "$out/storekeeper-$name.service"
  for child in $(seq 2 "$children"); do
    fastcgi_service "$name" "$route" "$child" "" > "$out/storekeeper-$name-$child.service"
  done
  units+=("storekeeper-$name.socket")
done < <(jq -r 'select(.route) | "\(.name)\t\(.route)"' "$root"/functions/*/function.json)

# nginx's configuration, pointing at the sockets; its own state (pid, temp files, logs) in
# GATEWAY_STATE_DIR. NGINX_USER empty: nginx starts as GATEWAY_USER itself, no `user` line.
NGINX_USER= "$root/infra/nginx/render-config.sh" "$listen" "$gateway_state" "$sockets" > "$conf.tmp"
mv "$conf.tmp" "$conf"
after=""
for name in "${routed[@]}"; do after="$after storekeeper-$name.socket"; done
gateway_writable=$(writable "$gateway_state" "$gateway_state/tmp")
cat > "$out/storekeeper-gateway.service" <<UNIT
# Generated by infra/systemd/render-units.sh; do not edit.
[Unit]
Description=Storekeeper gateway (nginx, FastCGI to the functions' sockets)
# The sockets first: a request nginx passes on starts its function; none is refused meanwhile.
Wants=${after# }
After=${after# } network-online.target
PartOf=storekeeper.target

[Service]
Type=exec
User=$gateway_user
Group=$gateway_group
ExecStartPre=$nginx -t -q -e stderr -c $conf
ExecStart=$nginx -e stderr -c $conf
ExecReload=/bin/kill -HUP \$MAINPID
# SIGQUIT: nginx stops accepting and finishes the requests it holds (a function answers within
# nginx's 30 s fastcgi_read_timeout), then exits.
KillSignal=SIGQUIT
TimeoutStopSec=35s
Restart=on-failure
RestartSec=1s
StandardOutput=journal
StandardError=journal
# The descriptors the configuration counts on (worker_rlimit_nofile, a quarter of them connections).
LimitNOFILE=16384
# A port below 1024 without root; nothing else.
AmbientCapabilities=CAP_NET_BIND_SERVICE
CapabilityBoundingSet=CAP_NET_BIND_SERVICE
$(hardening)
$gateway_writable
UNIT

# job name, schedule, what the schedule is for, extra [Service] lines
timer() {
  local name=$1 schedule=$2 reason=$3 extra=$4 timeout=$5
  [ -x "$bin/$name" ] || echo "render-units.sh: warning: $bin/$name is not built yet; its timer is rendered all the same" >&2
  cat > "$out/storekeeper-$name.timer" <<UNIT
# Generated by infra/systemd/render-units.sh; do not edit.
[Unit]
Description=Storekeeper $name, on a schedule
PartOf=storekeeper.target

[Timer]
$(fold -s -w 92 <<<"$reason" | sed 's/ *$//; s/^/# /')
$schedule
# A run still going when the next is due is not started twice: the timer waits for it.

[Install]
WantedBy=timers.target
UNIT
  cat > "$out/storekeeper-$name.service" <<UNIT
# Generated by infra/systemd/render-units.sh; do not edit.
[Unit]
Description=Storekeeper $name (one run, from storekeeper-$name.timer)
After=network-online.target
Wants=network-online.target

[Service]
Type=oneshot
ExecStart=$bin/$name
# The request, as cron gives it: '{}' on stdin; the report on stdout, to the journal.
StandardInput=data
StandardInputText={}
TimeoutStartSec=$timeout
$(function_service)
$extra
UNIT
  units+=("storekeeper-$name.timer")
}

timer process-notifications "OnActiveSec=1min
OnUnitInactiveSec=1min
AccuracySec=1s" \
  "Every minute (README: the worker runs from cron every minute): a run ends at its 50 s budget (PROCESS_BUDGET_SECONDS), and Apple's notifications wait in the queue until then." \
  "$(writable "$store")" 5min
timer reconcile "OnCalendar=*-*-* 04:17:00
RandomizedDelaySec=30min
Persistent=true" \
  "Daily (README: reconcile runs daily), at night, spread over 30 min; a run missed while the machine was off runs at boot. Its budget (RECONCILE_BUDGET_SECONDS, 1800 s) is far below a day, and an unfinished run resumes at its cursor." \
  "$(writable "$store")" 45min
timer deliver-events "OnActiveSec=1min
OnUnitInactiveSec=1min
AccuracySec=1s" \
  "Every minute (README: deliver-events from cron every minute): the shortest retry is 5 s, a pass ends at its 50 s budget (DELIVER_BUDGET_SECONDS). Without webhooks (exit 78: no endpoint) disable this timer." \
  "$(writable "$store")
# Exit 75 is its normal 'something is still pending' (a retry not yet due): not a failure here.
SuccessExitStatus=75" 5min
timer backup-store "OnCalendar=*-*-* 03:15:00
RandomizedDelaySec=10min
Persistent=true" \
  "Daily (README: backup-store runs daily and keeps its newest STORE_BACKUP_KEEP copies, 7: a week of them), at night before reconcile; a day missed while the machine was off runs at boot. The copy is consistent while the functions run. Copy BACKUP_DIR off the machine too. With a Redis store (store_not_sqlite, exit 78) disable this timer: Redis keeps its own append-only file." \
  "Environment=STORE_BACKUP_DIR=$backups
$(writable "$store" "$backups")" 30min

{
  cat <<UNIT
# Generated by infra/systemd/render-units.sh; do not edit.
[Unit]
Description=Storekeeper: the functions' sockets, the gateway and the timers
UNIT
  for unit in "${units[@]}" storekeeper-gateway.service; do echo "Wants=$unit"; done
  cat <<UNIT

[Install]
WantedBy=multi-user.target
UNIT
} > "$out/storekeeper.target"
echo "render-units.sh: wrote ${#routed[@]} sockets with $children services each, the gateway, 4 timers and storekeeper.target into $out" >&2
