#!/usr/bin/env bash
# cloudsmd as a service on ibsim:
#   -B/--daemon returns 0 once cloudsmd serves (the log says so by then), the daemon is in a
#     session of its own with the pid --pid-file holds, and the file goes at SIGTERM; a daemon
#     that fails at start makes -B exit 1 with the message on the caller's standard error;
#   systemd's notifications on $NOTIFY_SOCKET (a path, and an abstract "@name"): STATUS at
#     start, READY=1 when serving, RELOADING=1 then READY=1 around a SIGHUP, STOPPING=1;
#   with standard error on the journal ($JOURNAL_STREAM = its device:inode) log lines carry
#     sd-daemon <N> levels instead of times; a JOURNAL_STREAM of another file changes nothing;
#   logrotate: after the log file is moved away, SIGUSR1 (and SIGHUP) opens a new one;
#   signals in every phase: SIGHUP and SIGUSR1 sent from the start and through the first sweep
#     do not end it; SIGTERM during the bring-up stops it cleanly (exit 0); while another SM is
#     master it stands by, SIGHUP and SIGUSR1 do not end it, and SIGTERM stops it cleanly.
source "$(dirname "$0")/../lib/common.sh"
require_oracles ibsim sminfo python3 opensm
CLOUDSMD=${CLOUDSM_BUILD_DIR:?}/cloudsmd
LISTEN=$(cd "$(dirname "$0")/../lib" && pwd)/notify_listen.py
cd "$WORK" || exit 1

"$CLOUDSM" topo gen kary 4 2 -o tree.topo || fail "topo gen"
start_ibsim tree.topo
printf 'routing_engine ftree\nsweep_interval 1\n' >sm.conf

# ---- --daemon and --pid-file ----
sim "$CLOUDSMD" -B --pid-file "$WORK/sm.pid" -c sm.conf -d state -f daemon.log >daemon.out 2>&1
expect_eq "-B: exit status once serving" 0 $?
check "-B: serving when it returned" grep -q "waiting for SIGTERM" daemon.log
pid=$(cat sm.pid 2>/dev/null)
check "--pid-file: a live pid ($pid)" kill -0 "${pid:-0}"
SIM_PIDS+=("${pid:-0}")
check "-B: the daemon is not the process we started (its own session)" \
  test "$(ps -o sid= -p "${pid:-0}" | tr -d ' ')" != "$(ps -o sid= -p $$ | tr -d ' ')"
check "-B: the daemon leads no session (no terminal can be its)" \
  test "$(ps -o sid= -p "${pid:-0}" | tr -d ' ')" != "${pid:-0}"
check "-B: sminfo says master" grep -q "SMINFO_MASTER" <(sim sminfo)
check "-B: no word from cloudsmd on the caller's output" bash -c "! grep -q cloudsmd daemon.out"
kill -TERM "${pid:-0}"
for _ in $(seq 1 50); do kill -0 "${pid:-0}" 2>/dev/null || break; sleep 0.1; done
check "SIGTERM: the daemon stopped" bash -c "! kill -0 ${pid:-0} 2>/dev/null"
check "SIGTERM: the pid file is gone" test ! -e sm.pid
check "SIGTERM: a clean stop in the log" grep -q "signal 15: stopping" daemon.log
unset 'SIM_PIDS[-1]'
printf 'sm_priority 16\n' >bad.conf
sim "$CLOUDSMD" -B -c bad.conf -d state -f bad.log >bad.out 2>&1
expect_eq "-B with a bad configuration: exit status" 1 $?
check "-B with a bad configuration: the message on our stderr" \
  grep -q "bad.conf:1: sm_priority: 16 is out of range" bad.out
"$CLOUDSMD" -B -c sm.conf -d state -f noport.log >noport.out 2>&1 # no umad2sim: no port
expect_eq "-B with no InfiniBand port: exit status (the daemon failed first)" 1 $?
run 2 "$CLOUDSMD" -B -o
check "-B with -o: refused" grep -q "\-\-daemon and \-\-once do not go together" "$WORK/err"

# ---- notifications, the journal's stream, SIGHUP, SIGUSR1 ----
# notify_run SOCKET NAME [cloudsmd options]: cloudsmd in the foreground with NOTIFY_SOCKET and a
# listener; sets $sm and $listener.
notify_run() {
  local socket=$1 log=$2; shift 2
  python3 "$LISTEN" "$socket" 30 >"$log.notify" &
  listener=$!
  for _ in $(seq 1 50); do [[ $socket == @* || -S $socket ]] && break; sleep 0.1; done
  sleep 0.3
  NOTIFY_SOCKET=$socket LD_PRELOAD=$UMAD2SIM "$CLOUDSMD" -c sm.conf -d state "$@" \
    2>"$log.err" >/dev/null &
  sm=$!
  SIM_PIDS+=("$sm" "$listener")
}
notify_run "$WORK/notify.sock" n1 -f n1.log
wait_log n1.notify "READY=1" 1 20
check "notify: READY=1 once serving" grep -q "^READY=1|STATUS=master SM, 24 nodes, routing ftree" n1.notify
check "notify: a STATUS before (the bring-up)" \
  grep -q "^STATUS=sweeping the fabric (bring-up)" <(head -1 n1.notify)
check "notify: READY=1 after the log says so" grep -q "waiting for SIGTERM" n1.log
# A re-routing with another engine: systemd's STATUS follows (as after a sweep or a takeover).
"$CLOUDSM" sm reroute minhop -d state >/dev/null || fail "sm reroute minhop"
wait_log n1.notify "^STATUS=master SM, 24 nodes, routing minhop" 1 5
check "notify: STATUS follows a re-routing" \
  grep -q "^STATUS=master SM, 24 nodes, routing minhop" n1.notify
mv n1.log n1.log.1
kill -USR1 "$sm"
wait_log n1.log "SIGUSR1: log reopened" 1 5
check "SIGUSR1: a new log file after logrotate moved it" grep -q "SIGUSR1: log reopened" n1.log
check "SIGUSR1: the old file keeps the start" grep -q "waiting for SIGTERM" n1.log.1
mv n1.log n1.log.2
kill -HUP "$sm"
wait_log n1.log "SIGHUP: configuration read again" 1 5
check "SIGHUP: a new log file too" grep -q "SIGHUP: configuration read again" n1.log
wait_log n1.notify "READY=1" 2 5
check "notify: RELOADING=1 at SIGHUP" grep -q "^RELOADING=1|STATUS=reading the configuration" n1.notify
check "notify: READY=1 after the reload" grep -q "^READY=1" <(grep -A1 "^RELOADING=1" n1.notify | tail -1)
stop_daemon "$sm"
expect_eq "SIGTERM: exit status" 0 $?
wait_exit "$listener" 10 # it ends at STOPPING=1
check "notify: STOPPING=1 at SIGTERM" grep -q "^STOPPING=1|STATUS=stopping (signal 15)" n1.notify

# The abstract namespace, and standard error on the journal: "<6>message", no time.
: >journal.err
journal_stream=$(stat -c '%d:%i' journal.err)
python3 "$LISTEN" @cloudsm-notify-$$ 30 >n2.notify &
listener=$!
SIM_PIDS+=("$listener")
sleep 0.5
NOTIFY_SOCKET=@cloudsm-notify-$$ JOURNAL_STREAM=$journal_stream LD_PRELOAD=$UMAD2SIM \
  "$CLOUDSMD" -c sm.conf -d state 2>>journal.err >/dev/null &
sm=$!
SIM_PIDS+=("$sm")
wait_log n2.notify "READY=1" 1 20
check "notify on an abstract socket: READY=1" grep -q "^READY=1" n2.notify
check "journal: info lines as <6>" grep -qx "<6>master SM on port .* waiting for SIGTERM" journal.err
check "journal: no times" bash -c "! grep -qE '^[0-9]{4}-' journal.err"
stop_daemon "$sm"
wait_exit "$listener" 10
JOURNAL_STREAM=1:1 sim "$CLOUDSMD" -o -c sm.conf -d state 2>not-journal.err
check "journal: a JOURNAL_STREAM of another file: times as usual" \
  grep -qE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T.* INFO  ' not-journal.err

# ---- signals in every phase ----
# On a larger fabric with one SMP in flight, so that the bring-up lasts long enough to be hit.
stop_ibsim
"$CLOUDSM" topo gen kary 8 3 -o big.topo || fail "topo gen"
start_ibsim big.topo
printf 'routing_engine ftree\nsweep_interval 1\nmax_wire_smps 1\n' >sm.conf
# started LOG: wait until cloudsmd has its log open (its signal handlers are set by then).
started() { wait_log "$1" "cloudsmd on .* port|not master" 1 10; }
# SIGHUP and SIGUSR1 from the first moment through the bring-up: cloudsmd comes up all the same.
LD_PRELOAD=$UMAD2SIM "$CLOUDSMD" -c sm.conf -d state -f early.log 2>early.err &
sm=$!
SIM_PIDS+=("$sm")
started early.log
sent=0
for _ in $(seq 1 300); do
  grep -q "waiting for SIGTERM" early.log 2>/dev/null && break
  kill -HUP "$sm" 2>/dev/null && kill -USR1 "$sm" 2>/dev/null && sent=$((sent + 2))
  sleep 0.02
done
check "HUP and USR1 were sent during the bring-up ($sent)" test "$sent" -gt 0
check "HUP and USR1 through the bring-up: cloudsmd still came up" \
  grep -q "waiting for SIGTERM" early.log
check "... and is running" kill -0 "$sm"
wait_log early.log "SIGHUP: configuration read again" 1 5
check "... and applied the SIGHUP once serving" grep -q "SIGHUP: configuration read again" early.log
stop_daemon "$sm"
expect_eq "... and stopped cleanly at SIGTERM" 0 $?

# SIGTERM during the first sweep: the sweep ends, then a clean stop.
LD_PRELOAD=$UMAD2SIM "$CLOUDSMD" -c sm.conf -d state -f term.log 2>term.err &
sm=$!
SIM_PIDS+=("$sm")
started term.log
stop_daemon "$sm"
expect_eq "SIGTERM in the bring-up: exit status" 0 $?
check "SIGTERM in the bring-up: said so" grep -qE "signal 15 during the bring-up: stopping" term.log
check "SIGTERM in the bring-up: the first sweep ended first" grep -q "subnet up" term.log

# Not master: OpenSM with a higher priority is, on another host's port; cloudsmd stands by. HUP
# and USR1 meanwhile change nothing; SIGTERM then stops it cleanly.
SIM_HOST=H-0010000000000300 OSM_CACHE_DIR=$WORK/osm OSM_TMP_DIR=$WORK/osm LD_PRELOAD=$UMAD2SIM \
  opensm -p 15 -R ftree -f "$WORK/osm.log" >osm.out 2>&1 &
SIM_PIDS+=($!)
wait_log osm.log "SUBNET UP" 1 30
check "OpenSM came up as master" grep -q "Entering MASTER state" osm.log
LD_PRELOAD=$UMAD2SIM "$CLOUDSMD" -c sm.conf -d state -f standby.log 2>standby.err &
sm=$!
SIM_PIDS+=("$sm")
started standby.log
for _ in $(seq 1 20); do
  kill -HUP "$sm" 2>/dev/null && kill -USR1 "$sm" 2>/dev/null
  sleep 0.05
done
wait_log standby.log "standby SM on port" 1 30
check "not master: stands by" grep -q "standby SM on port" standby.log
check "standby: HUP and USR1 did not end it" kill -0 "$sm"
stop_daemon "$sm"
status=$?
expect_eq "standby, HUP and USR1 sent, then SIGTERM: exit status" 0 "$status"
finish
