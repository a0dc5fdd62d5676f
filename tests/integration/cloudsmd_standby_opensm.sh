#!/usr/bin/env bash
# cloudsmd and OpenSM 3.3.23 as master and standby of one ibsim fabric, in both roles:
#   OpenSM master (priority 5), cloudsmd standby (3): sminfo reads MASTER and STANDBY; kill -9
#   OpenSM: cloudsmd takes over, every port keeps its LID;
#   cloudsmd master (5), OpenSM standby (3): kill -9 cloudsmd: OpenSM takes over, LIDs kept;
#   in both, the master's SA lists both SMs (saquery SMIR), checked alike for either;
#   handover: OpenSM master (3), cloudsmd (5) started second gets mastership by OpenSM's
#   HANDOVER, OpenSM stands by; cloudsmd master (3), OpenSM (5) started second
#   stands by, and cloudsmd, finding it at its next sweep, hands over to it (OpenSM then answers
#   as master; on ibsim its sweep waits for a TrapRepress forever, see case 4).
# Both sides poll every 300 ms and take over after 3 unanswered polls.
source "$(dirname "$0")/../lib/common.sh"
require_oracles ibsim opensm ibnetdiscover sminfo
CLOUDSMD=${CLOUDSM_BUILD_DIR:?}/cloudsmd
cd "$WORK" || exit 1 # umad2sim writes its sysfs copy into the current directory

"$CLOUDSM" topo gen kary 2 2 -o k2n2.topo || fail "topo gen"
HOST_A=H-0010000000000000 GUID_A=0x0010000000000001 # cloudsmd
HOST_B=H-0010000000000300 GUID_B=0x0010000000000301 # OpenSM
OBSERVER=H-0010000000000100
printf 'sweep_interval 1\nsminfo_polling_timeout 300\npolling_retry_number 2\n' >sm.conf
printf 'transaction_timeout 100\ntransaction_retries 1\n' >>sm.conf
cp sm.conf osm.conf # the same keys, the same meaning

# cloudsmd NAME PRIORITY / opensm_sm NAME PRIORITY: a daemon on host A / host B, state and log
# under NAME.
cloudsmd() {
  mkdir -p "$1"
  SIM_HOST=$HOST_A LD_PRELOAD="$UMAD2SIM" "$CLOUDSMD" -R ftree -p "$2" -c sm.conf \
    --state-dir "$1" --log-file "$1/sm.log" >/dev/null 2>"$1/stderr" &
  SIM_PIDS+=($!)
}
opensm_sm() {
  mkdir -p "$1"
  SIM_HOST=$HOST_B OSM_CACHE_DIR=$WORK/$1 OSM_TMP_DIR=$WORK/$1 LD_PRELOAD="$UMAD2SIM" \
    opensm -F osm.conf -R ftree -p "$2" -f "$WORK/$1/osm.log" >"$1/opensm.out" 2>&1 &
  SIM_PIDS+=($!)
}

# serving GUID: wait (10 s at most) until the observer's port names this SM its master (its SM
# LID set by it, and SMInfo there MASTER): the SM has brought the subnet up.
serving() {
  local i want
  want="sm guid $(printf 0x%x "$1"),.*SMINFO_MASTER"
  for i in $(seq 1 50); do
    SIM_HOST=$OBSERVER sim sminfo 2>/dev/null | grep -qE "$want" && return 0
    sleep 0.2
  done
  return 1
}
# roles NAME MASTER_GUID STANDBY_GUID: sminfo from the observer says so.
roles() {
  observed_lids "$1.guid2lid"
  expect_eq "$1: sminfo at the master's LID" SMINFO_MASTER "$(observed_sm_state "$(lid_in "$2" "$1.guid2lid")")"
  expect_eq "$1: sminfo at the standby's LID" SMINFO_STANDBY "$(observed_sm_state "$(lid_in "$3" "$1.guid2lid")")"
}
# smir NAME MASTER_GUID MASTER_PRIO STANDBY_GUID STANDBY_PRIO: the master's SA lists both SMs
# (`saquery SMIR`), itself first, each with its port's LID (NAME.guid2lid), GUID, priority and
# state (the standby's as it answered the master's last poll: discovering or standby, for OpenSM
# and cloudsmd alike); the same check for OpenSM's SA and cloudsmd's. ActCount (SMPs sent) is
# left out.
smir() {
  SIM_HOST=$OBSERVER sim saquery SMIR >"$1.smir" 2>&1
  awk '/SMInfoRecord dump/ { n++ } /LID\.|GUID\.|Priority\.|SMState\./ { gsub(/\.+/, " "); print n, $1, $2 }' \
    "$1.smir" | sed -E 's/^2 SMState [12]$/2 SMState standing-by/' >"$1.smir.fields"
  local want
  want=$(printf '1 LID %s\n1 GUID %s\n1 Priority %s\n1 SMState 3\n2 LID %s\n2 GUID %s\n2 Priority %s\n2 SMState standing-by' \
    "$(lid_in "$2" "$1.guid2lid")" "$2" "$3" "$(lid_in "$4" "$1.guid2lid")" "$4" "$5")
  expect_eq "$1: saquery SMIR (master, then standby)" "$want" "$(cat "$1.smir.fields")"
}

# 1. OpenSM master, cloudsmd standby; OpenSM dies.
start_ibsim k2n2.topo
opensm_sm o1 5
osm=$!
serving "$GUID_B"
cloudsmd c1 3
cd_pid=$!
wait_log c1/sm.log "waiting for SIGTERM" 1 30
check "1: cloudsmd stands by" grep -q "standby SM on port $GUID_A" c1/sm.log
roles one "$GUID_B" "$GUID_A"
smir one "$GUID_B" 5 "$GUID_A" 3
kill -9 "$osm"
wait_log c1/sm.log "master SM on port $GUID_A \\(takeover 1\\)" 1 20
check "1: cloudsmd takes over from OpenSM" grep -q "master SM on port $GUID_A (takeover 1)" c1/sm.log
observed_lids one_after.guid2lid
check "1: every port keeps OpenSM's LID" cmp -s one.guid2lid one_after.guid2lid
grep "lfts:" c1/sm.log | tail -1 # OpenSM's ftree and ours may differ: for the record
stop_daemon "$cd_pid"
expect_eq "1: cloudsmd stops cleanly" 0 $?

# 2. cloudsmd master, OpenSM standby; cloudsmd dies.
stop_ibsim
start_ibsim k2n2.topo
cloudsmd c2 5
cd_pid=$!
wait_log c2/sm.log "waiting for SIGTERM" 1 30
opensm_sm o2 3
osm=$!
wait_log o2/opensm.out "Entering STANDBY state" 1 20
check "2: OpenSM stands by" grep -q "Entering STANDBY state" o2/opensm.out
roles two "$GUID_A" "$GUID_B"
smir two "$GUID_A" 5 "$GUID_B" 3
kill -9 "$cd_pid"
wait_log o2/opensm.out "Entering MASTER state" 1 20
check "2: OpenSM takes over from cloudsmd" grep -q "Entering MASTER state" o2/opensm.out
check "2: OpenSM serves" serving "$GUID_B"
observed_lids two_after.guid2lid
check "2: every port keeps cloudsmd's LID" cmp -s two.guid2lid two_after.guid2lid
stop_daemon "$osm"

# 3. OpenSM master (3); cloudsmd (5) started second gets mastership by OpenSM's HANDOVER.
stop_ibsim
start_ibsim k2n2.topo
opensm_sm o3 3
osm=$!
serving "$GUID_B"
cloudsmd c3 5
cd_pid=$!
wait_log c3/sm.log "master SM on port $GUID_A \\(takeover 1\\)" 1 30
# OpenSM sweeps at once on the trap cloudsmd's IsSM raises: it may find cloudsmd still
# discovering and hand over then, or find it standby (cloudsmd's trap 144 makes it sweep).
check "3: OpenSM's HANDOVER made cloudsmd master" grep -q "HANDOVER received" c3/sm.log
wait_log o3/opensm.out "Entering STANDBY state" 1 10
check "3: OpenSM stands by" grep -q "Entering STANDBY state" o3/opensm.out
roles three "$GUID_A" "$GUID_B"
kill "$osm" "$cd_pid"
wait_exit "$cd_pid" 10 "of SIGTERM"
expect_eq "3: cloudsmd stops cleanly" 0 $?
wait_exit "$osm" 10 "of SIGTERM"

# 4. cloudsmd master (3); OpenSM (5) started second stands by, and cloudsmd hands over to it.
stop_ibsim
start_ibsim k2n2.topo
cloudsmd c4 3
cd_pid=$!
wait_log c4/sm.log "waiting for SIGTERM" 1 30
opensm_sm o4 5
osm=$!
wait_log c4/sm.log "handing mastership over" 1 30
check "4: cloudsmd hands over to OpenSM" grep -q \
  "handing mastership over: port GUID $GUID_B, priority 5, standby, .*: a standby of higher priority" c4/sm.log
wait_log o4/opensm.out "Entering MASTER state" 1 20
check "4: OpenSM takes the HANDOVER" grep -q "Entering MASTER state" o4/opensm.out
wait_log c4/sm.log "standby: polling the master $GUID_B" 1 10
check "4: cloudsmd stands by, polling OpenSM" grep -q "standby: polling the master $GUID_B" c4/sm.log
# OpenSM does not bring the subnet up here: as standby it sent cloudsmd (a master of lower
# priority) a Trap 144, and ibsim does not deliver cloudsmd's TrapRepress to OpenSM (it has
# no response bit; the kernel's MAD layer routes TrapRepress as a response), so OpenSM waits for it forever, and its sweeps with it. Its SMInfo says MASTER.
roles four "$GUID_B" "$GUID_A"
kill "$osm" "$cd_pid"
wait_exit "$cd_pid" 10 "of SIGTERM"
expect_eq "4: cloudsmd (standby) stops cleanly" 0 $?
wait_exit "$osm" 10 "of SIGTERM"
expect_eq "nothing on cloudsmd's standard error (sanitizers)" "" "$(cat c*/stderr)"
finish
