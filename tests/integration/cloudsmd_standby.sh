#!/usr/bin/env bash
# Two cloudsmd on one ibsim fabric: the IBA SM state machine (docs/sm/cloudsmd.md, item 3).
#   A (priority 5) is master; B (priority 3) started next to it goes STANDBY: sminfo from a third
#   host reads MASTER at A's LID and STANDBY at B's, B programs nothing, `cloudsm sm status`
#   names A as B's master;
#   kill -9 A: B takes over within sminfo_polling_timeout * (polling_retry_number + 1) plus a
#   sweep, every port keeps its LID (ibnetdiscover before and after), B sends 0 LFT blocks (the
#   switches hold the tables it routes) and sminfo finds B master;
#   handover: A started again with priority 5 goes STANDBY next to B (it finds a master), and B,
#   finding a standby of higher precedence at its next sweep, hands mastership over: A master,
#   B standby, no LID moved, A acknowledged the HANDOVER;
#   equal priorities (a fresh fabric): B started first is master; A, of the same priority and the
#   lower port GUID, started second, goes standby and gets mastership by HANDOVER;
#   a standby's priority raised on SIGHUP above the master's: its poll finds the master below
#   it and tells it (Trap 144); the master, which sweeps only every 30 s, sweeps on the trap,
#   finds the standby above it and hands over.
source "$(dirname "$0")/../lib/common.sh"
require_oracles ibsim ibnetdiscover sminfo smpquery
CLOUDSMD=${CLOUDSM_BUILD_DIR:?}/cloudsmd
cd "$WORK" || exit 1 # umad2sim writes its sysfs copy into the current directory

"$CLOUDSM" topo gen kary 2 2 -o k2n2.topo || fail "topo gen"
HOST_A=H-0010000000000000 GUID_A=0x0010000000000001
HOST_B=H-0010000000000300 GUID_B=0x0010000000000301
OBSERVER=H-0010000000000100
POLL_MS=300 RETRIES=2
# An unanswered poll waits transaction_timeout * (transaction_retries + 1) = 200 ms < POLL_MS.
printf 'sweep_interval 1\nsminfo_polling_timeout %s\npolling_retry_number %s\n' \
  "$POLL_MS" "$RETRIES" >sm.conf
printf 'transaction_timeout 100\ntransaction_retries 1\n' >>sm.conf

# start_sm NAME HOST PRIORITY: a daemon on HOST's port, its state and log under NAME.
start_sm() {
  mkdir -p "$1"
  SIM_HOST=$2 LD_PRELOAD="$UMAD2SIM" "$CLOUDSMD" -R ftree -p "$3" -c sm.conf --state-dir "$1" \
    --log-file "$1/sm.log" >/dev/null 2>"$1/stderr" &
  SIM_PIDS+=($!)
}

start_ibsim k2n2.topo
start_sm a "$HOST_A" 5
pid_a=$!
wait_log a/sm.log "waiting for SIGTERM" 1 30
start_sm b "$HOST_B" 3
pid_b=$!
wait_log b/sm.log "waiting for SIGTERM" 1 30
check "B is standby" grep -q "standby SM on port $GUID_B" b/sm.log
check "B names A and the rule" grep -q \
  "another SM wins: port GUID $GUID_A, priority 5, master, .*: it is already master" b/sm.log
check "B programs nothing" bash -c "! grep -q lfts: b/sm.log"
observed_lids before.guid2lid
lid_a=$(lid_in "$GUID_A" before.guid2lid)
lid_b=$(lid_in "$GUID_B" before.guid2lid)
expect_eq "sminfo: A" SMINFO_MASTER "$(observed_sm_state "$lid_a")"
expect_eq "sminfo: B" SMINFO_STANDBY "$(observed_sm_state "$lid_b")"
"$CLOUDSM" sm status -d b >status.txt 2>&1
check "cloudsm sm status: B standby, A its master" \
  grep -qzE "state +standby.*master +$GUID_A" status.txt

# A dies: B takes over.
kill -9 "$pid_a"
killed=$(date +%s%N)
wait_log b/sm.log "master SM on port $GUID_B \\(takeover 1\\)" 1 30
took=$((($(date +%s%N) - killed) / 1000000))
check "B takes over" grep -q "master SM on port $GUID_B (takeover 1)" b/sm.log
bound=$((POLL_MS * (RETRIES + 1) + 1000)) # + a sweep (under 1 s here)
check "within ${bound} ms (took $took ms)" test "$took" -le "$bound"
check "B counted the polls the master missed" \
  grep -q "standby: the master $GUID_A is gone ($((RETRIES + 1)) of $((RETRIES + 1)) polls)" b/sm.log
check "B sent 0 LFT blocks (the tables were right)" grep -q "lfts: .* 0 blocks sent" b/sm.log
observed_lids after.guid2lid
check "every port keeps its LID" cmp -s before.guid2lid after.guid2lid
expect_eq "sminfo: B after the takeover" SMINFO_MASTER "$(observed_sm_state "$lid_b")"

# A comes back with its priority 5: it finds B master and stands by; B, at its next sweep, finds
# a standby of higher precedence and hands over; A takes over, B stands by.
rm -f a/sm.log
start_sm a "$HOST_A" 5
pid_a=$!
wait_log a/sm.log "master SM on port $GUID_A \\(takeover 1\\)" 1 30
check "A found B master first" grep -q "another SM wins: port GUID $GUID_B, priority 3, master" a/sm.log
check "B hands over to A" grep -q \
  "handing mastership over: port GUID $GUID_A, priority 5, standby, .*: a standby of higher priority" b/sm.log
check "A took the HANDOVER" grep -q "HANDOVER received" a/sm.log
check "A sent 0 LFT blocks" grep -q "lfts: .* 0 blocks sent" a/sm.log
wait_log b/sm.log "SMInfo control 2 from SM $GUID_A" 1 10
check "B got A's ACKNOWLEDGE" grep -q "SMInfo control 2 from SM $GUID_A: now standby" b/sm.log
expect_eq "sminfo: A after the handover" SMINFO_MASTER "$(observed_sm_state "$lid_a")"
expect_eq "sminfo: B after the handover" SMINFO_STANDBY "$(observed_sm_state "$lid_b")"
observed_lids handover.guid2lid
check "every port keeps its LID across the handover" cmp -s before.guid2lid handover.guid2lid

kill "$pid_a" "$pid_b"
wait_exit "$pid_a" 10 "of SIGTERM"
expect_eq "A stops cleanly" 0 $?
wait_exit "$pid_b" 10 "of SIGTERM"
expect_eq "B (standby) stops cleanly" 0 $?
expect_eq "nothing on standard error (sanitizers)" "" "$(cat a/stderr b/stderr)"

# Equal priorities: the port GUID decides (A's is the lower), also for an SM already master.
stop_ibsim
start_ibsim k2n2.topo
rm -rf a b
start_sm b "$HOST_B" 4
pid_b=$!
wait_log b/sm.log "waiting for SIGTERM" 1 30
start_sm a "$HOST_A" 4
pid_a=$!
wait_log a/sm.log "master SM on port $GUID_A \\(takeover 1\\)" 1 30
check "B (equal priority) hands over to A" grep -q \
  "handing mastership over: port GUID $GUID_A, priority 4, standby, .*: a standby of the same priority, lower port GUID" b/sm.log
observed_lids tie.guid2lid
expect_eq "sminfo: A" SMINFO_MASTER "$(observed_sm_state "$(lid_in "$GUID_A" tie.guid2lid)")"
expect_eq "sminfo: B" SMINFO_STANDBY "$(observed_sm_state "$(lid_in "$GUID_B" tie.guid2lid)")"
check "B's LIDs kept by A" cmp -s <(grep '^0x' b/guid2lid | sort) <(grep '^0x' tie.guid2lid | sort)
kill "$pid_a" "$pid_b"
wait_exit "$pid_a" 10 "of SIGTERM"
wait_exit "$pid_b" 10 "of SIGTERM"
expect_eq "nothing on standard error (sanitizers)" "" "$(cat a/stderr b/stderr)"

# Priority raised on SIGHUP: Trap 144, then the master's HANDOVER.
stop_ibsim
start_ibsim k2n2.topo
rm -rf a b
printf 'sweep_interval 30\nsminfo_polling_timeout %s\ntransaction_timeout 100\n' "$POLL_MS" >slow.conf
printf 'sm_priority 1\nlog_level debug\n' | cat slow.conf - >a.conf
mkdir -p a b
SIM_HOST=$HOST_B LD_PRELOAD="$UMAD2SIM" "$CLOUDSMD" -R ftree -p 3 -c slow.conf --state-dir b \
  --log-file b/sm.log >/dev/null 2>b/stderr &
pid_b=$!
SIM_PIDS+=("$pid_b")
wait_log b/sm.log "waiting for SIGTERM" 1 30
SIM_HOST=$HOST_A LD_PRELOAD="$UMAD2SIM" "$CLOUDSMD" -R ftree -c a.conf --state-dir a \
  --log-file a/sm.log >/dev/null 2>a/stderr &
pid_a=$!
SIM_PIDS+=("$pid_a")
wait_log a/sm.log "waiting for SIGTERM" 1 30
check "A (priority 1) stands by" grep -q "standby SM on port $GUID_A" a/sm.log
sed -i 's/^sm_priority 1$/sm_priority 5/' a.conf
kill -HUP "$pid_a"
wait_log a/sm.log "master SM on port $GUID_A \\(takeover 1\\)" 1 10
check "A read priority 5" grep -q "SIGHUP: configuration read again; changed: sm_priority" a/sm.log
check "A told B (Trap 144)" grep -q "standby: trap 144 (SM priority) to LID" a/sm.log
check "B handed over on the trap (no light sweep due)" grep -q \
  "handing mastership over: port GUID $GUID_A, priority 5, standby" b/sm.log
check "A is master" grep -q "master SM on port $GUID_A (takeover 1)" a/sm.log
kill "$pid_a" "$pid_b"
wait_exit "$pid_a" 10 "of SIGTERM"
wait_exit "$pid_b" 10 "of SIGTERM"
expect_eq "nothing on standard error (sanitizers)" "" "$(cat a/stderr b/stderr)"
finish
