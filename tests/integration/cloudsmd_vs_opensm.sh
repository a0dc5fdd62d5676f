#!/usr/bin/env bash
# cloudsmd next to OpenSM 3.3.23 on ibsim:
#   with OpenSM's guid2lid preloaded into the state directory, cloudsmd programs exactly the LFTs
#   OpenSM's ftree programs (OpenSM's own opensm-lfts.dump against dump_fts after cloudsmd);
#   cloudsmd refuses to become a second master while OpenSM is master;
#   OpenSM started while cloudsmd is master finds it (SMInfo) and stays standby.
source "$(dirname "$0")/../lib/common.sh"
require_oracles ibsim opensm dump_fts sminfo
CLOUDSMD=${CLOUDSM_BUILD_DIR:?}/cloudsmd
cd "$WORK" || exit 1
absent() { ! grep -q "$@"; } # absent PATTERN FILE

# PGFT(3; 8,6,4; 1,4,3; 1,2,2) with 6 of 8 hosts per leaf: parallel cables, OpenSM routes it as
# a fat tree (checked below from its log).
"$CLOUDSM" topo gen pgft "3;8,6,4;1,4,3;1,2,2" --hosts-per-leaf 6 -o pgft.topo || fail "topo gen"

start_ibsim pgft.topo
run_opensm osm ftree || fail "opensm -o"
check "OpenSM routed with ftree (no fallback)" grep -q "ftree tables configured on all switches" osm/osm.log
stop_ibsim

start_ibsim pgft.topo
mkdir -p state && cp osm/guid2lid state/guid2lid
timeout -s KILL 120 env LD_PRELOAD="$UMAD2SIM" "$CLOUDSMD" -o -R ftree --state-dir state \
  --log-file sm.log
expect_eq "cloudsmd -o with OpenSM's LIDs" 0 $?
check "OpenSM's LIDs kept" cmp -s <(grep '^0x' osm/guid2lid | sort) <(grep '^0x' state/guid2lid | sort)
sim dump_fts >fts.dump 2>/dev/null || fail "dump_fts"
"$CLOUDSM" lft diff osm/opensm-lfts.dump fts.dump --json >diff.json
expect_eq "LFT entries differing from OpenSM's ftree" 0 "$(json_get diff.json entries_changed)"
expect_eq "switches compared" 52 "$(json_get diff.json switches_new)"

# OpenSM as master on another host's port: cloudsmd must not become a second master. OpenSM
# gets the higher priority: with equal ones cloudsmd's lower port GUID takes precedence, and an
# OpenSM master whose sweep sees it (cloudsmd's IsSM raises a trap) hands mastership over and
# goes STANDBY, as IBA says; cloudsmd then rightly claims, and the outcome depends on timing.
SIM_HOST=H-0010000000000300 OSM_CACHE_DIR=$WORK/osm2 OSM_TMP_DIR=$WORK/osm2 \
  LD_PRELOAD="$UMAD2SIM" opensm -p 10 -R ftree -f "$WORK/osm2.log" >osm2.out 2>&1 &
osm=$!
SIM_PIDS+=("$osm")
for _ in $(seq 1 150); do grep -q "SUBNET UP" osm2.log 2>/dev/null && break; sleep 0.1; done
check "OpenSM came up as master" grep -q "Entering MASTER state" osm2.log
timeout -s KILL 60 env LD_PRELOAD="$UMAD2SIM" "$CLOUDSMD" -R ftree -o --state-dir state --log-file refuse.log
expect_eq "cloudsmd refuses to be a second master (exit status)" 1 $?
check "the refusal names OpenSM's port" \
  grep -q "another SM wins: port GUID 0x0010000000000301, priority 10, master" refuse.log
check "and programs nothing" absent "lfts:" refuse.log
stop_daemon "$osm"

# The other way round: cloudsmd is master; OpenSM started later finds it and goes standby.
LD_PRELOAD="$UMAD2SIM" "$CLOUDSMD" -R ftree --state-dir state --log-file master.log >/dev/null 2>&1 &
daemon=$!
SIM_PIDS+=("$daemon")
for _ in $(seq 1 100); do grep -q "waiting for SIGTERM" master.log 2>/dev/null && break; sleep 0.1; done
SIM_HOST=H-0010000000000300 OSM_CACHE_DIR=$WORK/osm3 OSM_TMP_DIR=$WORK/osm3 \
  LD_PRELOAD="$UMAD2SIM" opensm -R ftree -f "$WORK/osm3.log" >osm3.out 2>&1 &
osm=$!
SIM_PIDS+=("$osm")
for _ in $(seq 1 150); do grep -qE "Entering (STANDBY|MASTER) state" osm3.log 2>/dev/null && break; sleep 0.1; done
check "OpenSM enters STANDBY next to cloudsmd" grep -q "Entering STANDBY state" osm3.log
check "OpenSM never becomes master" absent "Entering MASTER state" osm3.log
kill "$osm" "$daemon"
wait_exit "$daemon" 10 "of SIGTERM"
expect_eq "cloudsmd stops cleanly" 0 $?
wait_exit "$osm" 10 "of SIGTERM" # was left to the cleanup's SIGKILL: a hang shows now
finish
