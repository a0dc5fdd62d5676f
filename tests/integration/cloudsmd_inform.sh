#!/usr/bin/env bash
# Event subscriptions in cloudsmd against OpenSM 3.3.23 on the same ibsim fabric (a 4-ary-2-tree,
# OpenSM's LIDs, the same partitions.conf: hosts are limited members of the default partition,
# so that only Blue's share one): the same Set(InformInfo) requests from several hosts (accepted,
# replaced, refused for partitions, unknown GIDs, Subscribe 2, unsubscribing what is not there),
# the same `saquery -I` from three hosts, and the same Reports at two listening hosts while a host
# goes out of service and back (traps 65 and 64, and the switches' traps 128 and the listeners'
# own 144 forwarded), a multicast group gets its first full member and loses it (66, 67), and the
# subscriptions of a port that left are gone. Then, on cloudsmd alone: a subscriber that does not
# acknowledge gets each Report 1 + transaction_retries times, and the log says so.
source "$(dirname "$0")/../lib/common.sh"
require_oracles ibsim opensm saquery
INFORM=${CLOUDSM_BUILD_DIR:?}/sa_inform
JOIN=${CLOUDSM_BUILD_DIR}/mc_join
cd "$WORK" || exit 1

"$CLOUDSM" topo gen kary 4 2 -o tree.topo || fail "topo gen"
# The SM's port is a full member of the default partition, hosts only limited ones: two hosts
# share a partition only in Blue (hosts 1, 3 and 5).
cat >partitions.conf <<'PART'
Default=0x7fff, ipoib : ALL=limited, SELF=full ;
Blue=0x0001, ipoib : 0x0010000000000101=full, 0x0010000000000301=full, 0x0010000000000501=full ;
PART
GROUP=ff12:401b:8001::ffff:ffff # Blue's broadcast group: well known, no member yet

host() { printf 'H-00100000000%05x' $(($1 * 256)); } # host N's node description for SIM_HOST
gid() { printf 'fe80::10:0:0:%x01' "$1"; }            # host N's port GID
on() { # on HOST CMD...: run a client on that host
  local h=$1; shift
  SIM_HOST=$(host "$h") sim "$@" 2>/dev/null
}
set_on() { # set_on DIR HOST ARGS...: one Set(InformInfo), its answer kept in order
  local dir=$1 h=$2; shift 2
  echo "host $h set $*: $(on "$h" "$INFORM" set "$@")" >>"$dir/sets"
}
records() { # records DIR NAME: the subscriptions three hosts see (`saquery -I`: ibsim hands
  # a client one MAD of a table, whose first two records are whole), and whether ports 1, 2, 3
  # subscribe, each asking of itself (a Get by SubscriberGID: one, none or several)
  local h
  for h in 1 2 3; do
    on "$h" saquery -I | awk '/InformInfoRecord dump/ { n++ } n <= 2' >"$1/$2.host$h"
    echo "host $h: $(on "$h" "$INFORM" records "$(gid "$h")")" >>"$1/$2.by_subscriber"
  done
}
scenario() { # scenario DIR: the same requests and events against either SM
  local dir=$1 lid3
  mkdir -p "$dir"
  lid3=$(($(on 3 ibaddr | sed -nE 's/.*LID start (0x[0-9a-f]+).*/\1/p')))
  echo "host 3 has LID $lid3" >"$dir/sets"
  set_on "$dir" 1 1                       # everything
  set_on "$dir" 1 1 trap=64               # GID in service only
  set_on "$dir" 1 1 trap=64 resp=19       # not the same subscription (RespTimeValue differs)
  set_on "$dir" 2 1 gid="$(gid 3)"        # host 3 shares no partition with host 2
  set_on "$dir" 2 1 lids="$lid3-$lid3"    # nor by LID
  set_on "$dir" 2 1 lids="$lid3-0"        # LIDRangeEnd 0: the begin alone
  set_on "$dir" 2 1 gid=fe80::10:0:0:1    # the SM's port: a full member
  set_on "$dir" 2 1 gid=fe80::dead:1      # no such port
  set_on "$dir" 3 2                       # Subscribe 2
  set_on "$dir" 3 0 trap=99               # nothing to unsubscribe
  set_on "$dir" 3 1 trap=99
  set_on "$dir" 3 1 generic=0 trap=5 producer=0x1234 # vendor traps
  set_on "$dir" 5 1 trap=99
  set_on "$dir" 5 0 trap=99               # unsubscribed again
  set_on "$dir" 2 1 trap=66
  set_on "$dir" 2 1 trap=67
  records "$dir" before
  on 1 saquery -c | sed -n 's/^[[:space:]]*Capability mask\.\.*//p' >"$dir.capability"
  # Two listeners (each subscribes to everything; ibsim hands Reports only to a port that
  # claims IsSM, which they do, so their own trap 144s are reported too).
  SIM_HOST=$(host 1) sim "$INFORM" listen 16 >"$dir/listen.host1" 2>&1 &
  local l1=$!
  sleep 2
  SIM_HOST=$(host 2) sim "$INFORM" listen 14 >"$dir/listen.host2" 2>&1 &
  local l2=$!
  sleep 2
  ibsim_cmd "Unlink \"$(host 3)\"[1]"
  sleep 3
  ibsim_cmd "Link \"$(host 3)\"[1] \"S-0020000100000000\"[4]"
  sleep 3
  on 5 "$JOIN" join $GROUP >>"$dir/joins"
  sleep 1
  on 5 "$JOIN" leave $GROUP >>"$dir/joins"
  wait_exit "$l1" 25 "of listening"
  wait_exit "$l2" 25 "of listening"
  # Host 3 left and came back: its subscriptions went with it; host 1's, host 2's stay.
  records "$dir" after
}

IBSIM_CONSOLE=1 start_ibsim tree.topo
echo "drop_event_subscriptions TRUE" >osm.conf
start_opensm_daemon osm -R ftree -P "$WORK/partitions.conf" -F "$WORK/osm.conf"
osm=${SIM_PIDS[-1]}
scenario osm.in
stop_daemon "$osm"
stop_ibsim

IBSIM_CONSOLE=1 start_ibsim tree.topo
mkdir -p state && cp osm/guid2lid state/guid2lid
printf 'partition_config_file %s\nrouting_engine ftree\nsweep_interval 30\n%s\n' \
  "$WORK/partitions.conf" "drop_event_subscriptions TRUE" >sm.conf
start_cloudsmd_daemon sm.log -c sm.conf --state-dir state
scenario ours.in

# Reports at two hosts come in the order events happen, which the SMs' timing may change
# within a second: compared as sorted lists, next to the counts by trap.
for f in osm.in/listen.* ours.in/listen.*; do sort "$f" >"$f.sorted"; done
compare_dirs osm.in ours.in 'listen.host?'
expect_eq "files compared with OpenSM's" 12 "$compared"
# ClassPortInfo: both say IsSubnGetSetNoticeSupported (CapabilityMask bit 1); OpenSM says more.
for sm in osm ours; do
  check "$sm's ClassPortInfo says IsSubnGetSetNoticeSupported ($(cat $sm.in.capability))" \
    test $(($(cat $sm.in.capability) & 2)) -eq 2
done
expect_eq "files that differ from OpenSM's" 0 "$differing"
expect_eq "Sets answered, of 16" 16 "$(grep -c ': status' ours.in/sets)"
expect_eq "Sets refused, of 16" 6 "$(grep -c ': status 0x0200' ours.in/sets)"
check "Subscribe 2 is answered as it came" grep -q "set 2: status 0x0200 .* subscribe 2 " ours.in/sets
check "a refused subscription answers Subscribe 0" \
  grep -q "gid=$(gid 3): status 0x0200 .* subscribe 0 " ours.in/sets
expect_eq "subscribers 1, 2, 3 before: several each" 3 \
  "$(grep -c 'status 0x0400' ours.in/before.by_subscriber)"
check "host 3 left and came back: its subscriptions went (drop_event_subscriptions)" \
  grep -q "host 3: status 0x0300" ours.in/after.by_subscriber
expect_eq "hosts 1 and 2 keep theirs" 2 "$(grep -c 'status 0x0400' ours.in/after.by_subscriber)"
for trap in 64 65 66 67 144; do
  check "host 1 got a Report of trap $trap" grep -q "^report trap $trap " ours.in/listen.host1
done
check "host 2 heard nothing of host 3 (no shared partition)" \
  test "$(grep -c "gid $(gid 3)" ours.in/listen.host2)" = 0
check "host 2 heard nothing of Blue's group" test "$(grep -c "ff12:401b:8001" ours.in/listen.host2)" = 0
check "host 1 heard of host 3 going" grep -qE "^report trap 65 .* gid $(gid 3) " ours.in/listen.host1
check "host 1 heard of host 3 coming" grep -qE "^report trap 64 .* gid $(gid 3) " ours.in/listen.host1

# A subscriber that never acknowledges: the SA sends each Report 1 + transaction_retries (3)
# times, then logs it as lost; the SM serves on.
SIM_HOST=$(host 5) sim "$INFORM" listen 8 noack >noack.host5 2>&1 &
listener=$!
sleep 3
ibsim_cmd "Unlink \"$(host 3)\"[1]"
wait_exit "$listener" 20 "of listening"
expect_eq "Report of host 3's trap 65 sent 4 times" 4 \
  "$(grep -cE "^(report|repeat) trap 65 .* gid $(gid 3) " noack.host5)"
check "the log says the Report was never acknowledged" \
  grep -q "informs: the Report of trap 65 to LID .* was never acknowledged" sm.log
check "cloudsmd still answers" bash -c "SIM_HOST=$(host 1) LD_PRELOAD=$UMAD2SIM saquery -I >/dev/null"
finish
