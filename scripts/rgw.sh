#!/usr/bin/env bash
# Throwaway single-node Ceph S3 (mon + memstore OSD + radosgw, cluster auth off) on 127.0.0.1, for tests only.
#
#   scripts/rgw.sh start DIR PORT [MONPORT]   start (a previous cluster in DIR is stopped and wiped first)
#   scripts/rgw.sh stop DIR                   end the three daemons by the PIDs recorded in DIR
#   scripts/rgw.sh env DIR                    print the `export` lines the S3 tests read
#   scripts/rgw.sh check DIR                  one line: each daemon alive, and radosgw answering within 10 s (exit 1 if not)
#   scripts/rgw.sh diag DIR                   what a failed check needs: daemons, limits, memory, health, log tails
#
# RGW_MEMSTORE_BYTES sets the OSD's capacity (default 512 MiB, enough for the tests). Past 95% of it the OSD is
# full and radosgw accepts requests but never answers them: the 10,000-event publish bench needs 4 GiB.
#
# Needs the Debian packages radosgw ceph-mon ceph-osd (apt-get install -y radosgw ceph-mon ceph-osd ceph-mgr).
# Everything lives in memory and in DIR; nothing is reachable from outside the loopback interface.
set -euo pipefail

# Fixed, public test credentials: this S3 only ever listens on loopback and holds throwaway data.
readonly RGW_ACCESS_KEY=reset-test-access-key
readonly RGW_SECRET_KEY=reset-test-secret-key
readonly RGW_REGION=us-east-1
readonly RGW_BUCKETS=(reset-test)
readonly READY_TIMEOUT_S=${RGW_READY_TIMEOUT_S:-90}
readonly memstore_bytes=${RGW_MEMSTORE_BYTES:-536870912}
readonly STOP_GRACE_S=3
# Marks a directory as ours, so `start` never wipes a directory this script did not create.
readonly MARKER=.reset-rgw-dir

die() { echo "[rgw] $*" >&2; exit 1; }
[[ $memstore_bytes =~ ^[1-9][0-9]*$ ]] || die "RGW_MEMSTORE_BYTES must be a number of bytes, got '$memstore_bytes'"

usage() {
  sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

abs_dir() {
  local d=$1
  mkdir -p "$d"
  (cd "$d" && pwd -P)
}

log_tail() {
  local dir=$1 f
  for f in "$dir"/log/*.log "$dir"/log/*.out; do
    [ -s "$f" ] || continue
    echo "----- tail of $f -----" >&2
    tail -n 25 "$f" >&2
  done
}

port_free() {
  # Succeeds when nothing listens on 127.0.0.1:$1 (bash's /dev/tcp connect fails).
  ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# The PID must still be one of our daemons for this DIR: a recycled PID is never signalled.
ours() {
  local pid=$1 dir=$2
  [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "$dir/ceph.conf"
}

cmd_stop() {
  local dir
  [ -d "${1:?}" ] || { echo "[rgw] nothing to stop in $1"; return 0; }
  dir=$(abs_dir "$1")
  local pidfile="$dir/pids" pids=() name pid
  [ -f "$pidfile" ] || { echo "[rgw] no PID file in $dir; nothing to stop"; return 0; }
  # Gateway first, then OSD, then monitor: the reverse of the start order.
  for name in rgw osd mon; do
    pid=$(awk -v n="$name" '$1 == n { print $2 }' "$pidfile")
    [ -n "$pid" ] || continue
    if ours "$pid" "$dir"; then
      kill -TERM "$pid" 2>/dev/null || true
      pids+=("$pid")
    fi
  done
  local deadline=$((SECONDS + STOP_GRACE_S)) alive
  while :; do
    alive=()
    for pid in "${pids[@]}"; do ours "$pid" "$dir" && alive+=("$pid"); done
    [ ${#alive[@]} -eq 0 ] && break
    if [ $SECONDS -ge $deadline ]; then
      # ceph-osd with memstore often ignores TERM while it flushes; its data is throwaway anyway.
      for pid in "${alive[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
      sleep 0.2
      break
    fi
    sleep 0.2
  done
  rm -f "$pidfile"
  echo "[rgw] stopped (${#pids[@]} processes) in $dir"
}

wait_for() {
  # wait_for DIR WHAT COMMAND...: polls COMMAND until it succeeds or READY_TIMEOUT_S passes.
  local dir=$1 what=$2
  shift 2
  local deadline=$((SECONDS + READY_TIMEOUT_S))
  until "$@" >/dev/null 2>&1; do
    if [ $SECONDS -ge $deadline ]; then
      echo "[rgw] timed out after ${READY_TIMEOUT_S}s waiting for $what" >&2
      log_tail "$dir"
      cmd_stop "$dir" >&2 || true
      exit 1
    fi
    sleep 0.3
  done
}

record_pid() {
  # record_pid DIR NAME PIDFILE: waits for the daemon's own pid file and copies the PID into DIR/pids.
  local dir=$1 name=$2 file=$3
  wait_for "$dir" "$name to write $file" test -s "$file"
  echo "$name $(cat "$file")" >>"$dir/pids"
}

cmd_env() {
  local dir port
  dir=$(abs_dir "${1:?usage: rgw.sh env DIR}")
  [ -f "$dir/port" ] || die "no cluster was started in $dir"
  port=$(cat "$dir/port")
  cat <<EOF
export RESET_TEST_S3_ENDPOINT=http://127.0.0.1:$port
export RESET_TEST_S3_REGION=$RGW_REGION
export RESET_TEST_S3_ACCESS_KEY_ID=$RGW_ACCESS_KEY
export RESET_TEST_S3_SECRET_ACCESS_KEY=$RGW_SECRET_KEY
export RESET_TEST_S3_BUCKET=${RGW_BUCKETS[0]}
EOF
}

create_bucket() {
  local port=$1 bucket=$2
  AWS_ACCESS_KEY_ID=$RGW_ACCESS_KEY AWS_SECRET_ACCESS_KEY=$RGW_SECRET_KEY AWS_DEFAULT_REGION=$RGW_REGION \
    aws --endpoint-url "http://127.0.0.1:$port" s3api create-bucket --bucket "$bucket" >/dev/null 2>&1 && return 0
  # Without awscli (or when it fails), the SDK the project already depends on does the same.
  (cd "$(dirname "$0")/.." && RGW_PORT=$port RGW_BUCKET=$bucket RGW_AK=$RGW_ACCESS_KEY RGW_SK=$RGW_SECRET_KEY RGW_S3_REGION=$RGW_REGION node --input-type=module -e '
    import { S3Client, CreateBucketCommand } from "@aws-sdk/client-s3";
    const c = new S3Client({ endpoint: `http://127.0.0.1:${process.env.RGW_PORT}`, region: process.env.RGW_S3_REGION, forcePathStyle: true,
      credentials: { accessKeyId: process.env.RGW_AK, secretAccessKey: process.env.RGW_SK } });
    try { await c.send(new CreateBucketCommand({ Bucket: process.env.RGW_BUCKET })); }
    catch (e) { if (e.name !== "BucketAlreadyOwnedByYou") throw e; }
  ')
}

cmd_check() {
  # A daemon that died (an OSD gone leaves radosgw taking requests in and never answering them) or a radosgw that
  # no longer answers: the one line says which, and the exit code is 1.
  local dir port name pid state=() ok=0 code
  dir=$(abs_dir "${1:?usage: rgw.sh check DIR}")
  [ -f "$dir/port" ] && [ -f "$dir/pids" ] || die "no cluster was started in $dir"
  port=$(cat "$dir/port")
  for name in mon osd rgw; do
    pid=$(awk -v n="$name" '$1 == n { print $2 }' "$dir/pids")
    if [ -n "$pid" ] && ours "$pid" "$dir"; then state+=("$name up"); else state+=("$name DOWN"); ok=1; fi
  done
  # The anonymous bucket list reads the cluster's user index: an answer (403 or 200) means the OSD serves radosgw.
  code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 "http://127.0.0.1:$port/" 2>/dev/null) || true
  case "$code" in 2?? | 403) state+=("S3 answers $code") ;; *) state+=("S3 no answer in 10 s (${code:-000})"); ok=1 ;; esac
  local IFS=,
  echo "${state[*]}"
  return $ok
}

cmd_diag() {
  local dir name pid f
  dir=$(abs_dir "${1:?usage: rgw.sh diag DIR}")
  echo "[rgw] limits: open files $(ulimit -Sn)/$(ulimit -Hn), processes $(ulimit -Su); memory: $(free -m | awk '/^Mem:/ { print $7 " MiB available of " $2 }'); threads on the machine: $(ps -eLf --no-headers | wc -l)"
  for name in mon osd rgw; do
    pid=$(awk -v n="$name" '$1 == n { print $2 }' "$dir/pids" 2>/dev/null)
    if [ -n "$pid" ] && ours "$pid" "$dir"; then
      echo "[rgw] $name (pid $pid): up, $(ls "/proc/$pid/task" | wc -l) threads, $(ls "/proc/$pid/fd" | wc -l) open files, $(awk '/VmRSS/ { print $2 " kB" }' "/proc/$pid/status") resident"
    else
      echo "[rgw] $name (pid ${pid:-none}): gone"
    fi
  done
  timeout 15 ceph -c "$dir/ceph.conf" --connect-timeout 5 health detail 2>&1 | head -n 12 | sed 's/^/[rgw] health: /' || true
  # The kernel's word on a killed daemon, where this machine lets it be read.
  dmesg 2>/dev/null | grep -i -E 'out of memory|killed process|oom' | tail -n 5 | sed 's/^/[rgw] kernel: /' || true
  for f in "$dir"/log/osd.0.log "$dir"/log/mon.a.log "$dir"/log/client.rgw.log "$dir"/log/*.out; do
    [ -s "$f" ] || continue
    echo "----- last lines of $f, requests and routine lines aside -----"
    grep -v -E 'starting new request|req done|beast: 0x|pg_epoch|mgrmap|handle_command|log_channel\(audit\)' "$f" | tail -n 8
  done
}

cmd_start() {
  local dir_arg=${1:?usage: rgw.sh start DIR PORT [MONPORT]} port=${2:?usage: rgw.sh start DIR PORT [MONPORT]}
  [[ $port =~ ^[0-9]+$ ]] && [ "$port" -ge 1024 ] && [ "$port" -le 65535 ] || die "PORT must be 1024-65535, got $port"
  local monport=${3:-$((port < 64535 ? port + 1000 : port - 1000))}
  local b
  for b in radosgw ceph-mon ceph-osd ceph monmaptool ceph-authtool radosgw-admin curl; do
    command -v "$b" >/dev/null || die "$b not found; install with: apt-get install -y radosgw ceph-mon ceph-osd ceph-mgr curl"
  done

  local dir
  dir=$(abs_dir "$dir_arg")
  case "$dir" in / | "$HOME" | /root | /tmp | /work | /work/main) die "refusing to use $dir as the cluster directory" ;; esac
  if [ -n "$(ls -A "$dir")" ]; then
    [ -f "$dir/$MARKER" ] || die "$dir is not empty and was not created by rgw.sh; refusing to wipe it"
    cmd_stop "$dir"
    find "$dir" -mindepth 1 -delete
  fi
  port_free "$port" || die "port $port on 127.0.0.1 is already in use"
  port_free "$monport" || die "monitor port $monport on 127.0.0.1 is already in use (pass MONPORT as the third argument)"

  mkdir -p "$dir"/{mon,osd0,run,log}
  touch "$dir/$MARKER"
  echo "$port" >"$dir/port"
  : >"$dir/pids"

  local fsid
  fsid=$(cat /proc/sys/kernel/random/uuid)
  cat >"$dir/ceph.conf" <<EOF
[global]
fsid = $fsid
mon host = v1:127.0.0.1:$monport
mon initial members = a
auth cluster required = none
auth service required = none
auth client required = none
# One OSD, so every pool has one replica and PGs map onto a single host.
osd pool default size = 1
osd pool default min size = 1
mon allow pool size one = true
osd crush chooseleaf type = 0
osd pool default pg autoscale mode = off
osd pool default pg num = 8
osd pool default pgp num = 8
mon max pg per osd = 1000
mon warn on pool no redundancy = false
# Memory-backed object store: fast to create, gone when the OSD stops.
osd objectstore = memstore
memstore device bytes = $memstore_bytes
# Each placement group's log of recent writes is held twice in memory here (the OSD's copy and memstore's), and by
# default an OSD keeps up to 300,000 entries: the OSD grew by about 600 MB per run of the suite, the largest process
# on the machine. A single OSD never rebuilds a peer from these logs, so short ones keep its memory flat.
osd min pg log entries = 100
osd max pg log entries = 500
osd target pg log entries per osd = 5000
osd pg log dups tracked = 500
ms bind ipv6 = false
run dir = $dir/run
log file = $dir/log/\$name.log
admin socket = $dir/run/\$name.asok
pid file = $dir/run/\$name.pid
mon data = $dir/mon
osd data = $dir/osd\$id
keyring = $dir/keyring

[client.rgw]
rgw frontends = beast endpoint=127.0.0.1:$port
rgw dns name = 127.0.0.1
# The S3 tests poll and race; nothing here should be throttled or cached across requests.
rgw enable usage log = false
rgw cache enabled = false
EOF
  local conf=(-c "$dir/ceph.conf")
  # The daemons inherit this shell's limits: radosgw holds a file per client connection, and the suite keeps a few
  # hundred open at once, so the soft limit on open files is raised to the hard one.
  ulimit -Sn "$(ulimit -Hn)" 2>/dev/null || true

  monmaptool --create --addv a "[v1:127.0.0.1:$monport]" --fsid "$fsid" "$dir/monmap" --clobber >/dev/null
  ceph-authtool --create-keyring "$dir/keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
  ceph-mon "${conf[@]}" --mkfs -i a --monmap "$dir/monmap" --keyring "$dir/keyring" >"$dir/log/mkfs-mon.out" 2>&1 \
    || { log_tail "$dir"; die "ceph-mon --mkfs failed"; }
  ceph-mon "${conf[@]}" -i a >"$dir/log/mon.out" 2>&1 || { log_tail "$dir"; die "ceph-mon failed to start"; }
  record_pid "$dir" mon "$dir/run/mon.a.pid"
  wait_for "$dir" "the monitor on 127.0.0.1:$monport" ceph "${conf[@]}" --connect-timeout 5 mon stat

  ceph "${conf[@]}" --connect-timeout 10 osd create >/dev/null
  ceph-osd "${conf[@]}" -i 0 --mkfs >"$dir/log/mkfs-osd.out" 2>&1 || { log_tail "$dir"; die "ceph-osd --mkfs failed"; }
  # Now and then (about one start in six here) the OSD's first command reaches the monitor before the OSD has the
  # monitor map, is refused with 'wrong fsid', and the OSD exits. Starting it again finds the map in place.
  local attempt
  for attempt in 1 2 3; do
    ceph-osd "${conf[@]}" -i 0 >>"$dir/log/osd.out" 2>&1 && break
    [ "$attempt" -lt 3 ] || { log_tail "$dir"; die "ceph-osd failed to start (3 attempts)"; }
    echo "[rgw] ceph-osd exited during start (attempt $attempt: $(grep -o "wrong fsid" "$dir/log/osd.out" | tail -1)); starting it again" >&2
    sleep 1
  done
  record_pid "$dir" osd "$dir/run/osd.0.pid"

  radosgw "${conf[@]}" -n client.rgw >"$dir/log/rgw.out" 2>&1 || { log_tail "$dir"; die "radosgw failed to start"; }
  record_pid "$dir" rgw "$dir/run/client.rgw.pid"
  wait_for "$dir" "radosgw to answer on http://127.0.0.1:$port/" curl -sf -o /dev/null --max-time 2 "http://127.0.0.1:$port/"

  radosgw-admin "${conf[@]}" user create --uid=reset-test --display-name="Reset API tests" \
    --access-key="$RGW_ACCESS_KEY" --secret="$RGW_SECRET_KEY" >"$dir/log/user.out" 2>&1 \
    || { log_tail "$dir"; die "radosgw-admin user create failed"; }
  for b in "${RGW_BUCKETS[@]}"; do
    create_bucket "$port" "$b" || { log_tail "$dir"; die "could not create bucket $b"; }
  done
  cmd_env "$dir" >"$dir/env"
  echo "[rgw] ready on http://127.0.0.1:$port (PIDs in $dir/pids); for the tests: source $dir/env"
}

case "${1:-}" in
  start) shift; cmd_start "$@" ;;
  stop) shift; cmd_stop "${1:?usage: rgw.sh stop DIR}" ;;
  env) shift; cmd_env "$@" ;;
  check) shift; cmd_check "$@" ;;
  diag) shift; cmd_diag "$@" ;;
  *) usage ;;
esac
