#!/usr/bin/env bash
# Alias GUIDs (SR-IOV on a shared port) in cloudsmd's SA against OpenSM 3.3.23's, on the same ibsim
# fabric with the same LIDs. tests/lib/sa_alias registers and removes GUIDs as a host driver does
# (SubnAdmSet / SubnAdmDelete of a GUIDInfoRecord): GUIDs of the host's own, GUID 0 (the SM
# assigns one), duplicates of an alias and of a port GUID, a block beyond GUIDCap, the read-only
# entry 0, a missing component, a switch. Then `saquery GIR`, `saquery -p --sgid-to-dgid` by alias
# GIDs, the PathRecords between two LIDs (every GUID of each port), the table of every pair
# (`saquery -p`, also with a filter), ClassPortInfo, and a host that goes away and comes back (its
# aliases are gone; GUID 0 gives it the GUID it had). Every answer of cloudsmd's must equal
# OpenSM's, line for line.
#
# ibsim refuses every GUIDInfo Set (status 0x0008): both SMs log the refusal and go on answering
# from their own view. Of a PathRecord table ibsim shows the first records (saquery_first_records).
source "$(dirname "$0")/../lib/common.sh"
require_oracles ibsim opensm saquery
ALIAS=${CLOUDSM_BUILD_DIR:?}/sa_alias
cd "$WORK" || exit 1

# 4-ary-2-tree: 16 hosts H-0010000000000000 .. H-0010000000000f00 (port GUID +1), 8 switches.
"$CLOUDSM" topo gen kary 4 2 -o tree.topo || fail "topo gen"
ASK=H-0010000000000300 # the host the requests come from
MLX=0x0002c90300001111 # a GUID a host brings (its VF's)

# (GUIDs compared as strings: awk would compare switch GUIDs, above 2^53, as rounded numbers)
lid_of() { echo $(($(awk -v g="$1" '$1 "" == g {print $2}' osm/guid2lid))); }

# sa DIR ARGS...: one sa_alias request, its command and answer appended to DIR/seq.
sa() {
  local d=$1; shift
  echo "sa_alias $*" >>"$d/seq"
  SIM_HOST=$ASK sim "$ALIAS" "$@" >>"$d/seq" 2>/dev/null
}
# q DIR ARGS...: one saquery, likewise.
q() {
  local d=$1; shift
  echo "saquery $*" >>"$d/seq"
  SIM_HOST=$ASK sim saquery "$@" 2>/dev/null | saquery_first_records >>"$d/seq"
}

# sequence DIR: the same requests against whichever SM runs (OpenSM's LIDs for both).
sequence() {
  local d=$1 h1 h2 h3 sw
  mkdir -p "$d"
  h1=$(lid_of 0x0010000000000101) h2=$(lid_of 0x0010000000000201)
  h3=$(lid_of 0x0010000000000301) sw=$(lid_of 0x0020000100000000)
  sa "$d" get "$h1" 0
  sa "$d" set "$h1" 0 1=$MLX     # the host's own GUID
  sa "$d" set "$h1" 0 2=0        # assigned: 0x0014050000000001
  sa "$d" set "$h1" 0 3=0 4=0    # two more in one request
  sa "$d" set "$h1" 1 0=0        # index 8: block 1 entry 0 is not the port GUID
  sa "$d" set "$h1" 0 0=0x1234   # the port GUID's entry: REQ_INVALID
  sa "$d" set "$h2" 0 1=$MLX     # host-1's alias: refused, entry stays 0
  sa "$d" set "$h2" 0 1=0x0010000000000101 # host-1's port GUID: refused
  sa "$d" set "$h2" 0 2=0x0002c90300002222 3=0x0002c90300002222 # the same GUID twice
  sa "$d" set "$h1" 4 1=0x99     # GUIDCap 32: no block 4
  sa "$d" --mask 0x21 set "$h1" 0 1=0x77 # no BlockNum: insufficient components
  sa "$d" get "$h1" 0
  sa "$d" delete "$h1" 0 2
  sa "$d" delete "$h1" 0 5       # nothing there
  sa "$d" set "$h1" 0 2=0        # the GUID assigned there before
  sa "$d" set "$h1" 0 1=$MLX     # what it holds: nothing changes
  sa "$d" set "$h1" 0 1=0x0002c90300003333 # replaced
  sa "$d" delete "$h3" 3 1       # no Set yet: the request comes back
  sa "$d" delete "$h2" 5 1       # a table now: block 5 does not exist
  sa "$d" set "$sw" 0 1=0x5555   # a switch: GUIDCap 1
  sa "$d" set "$sw" 0 0=0x5555
  sa "$d" set 999 0 1=0x5555     # no such LID
  sa "$d" set "$h3" 0 1=0        # host-3 (the requester) too
  q "$d" GIR "$h1"
  q "$d" GIR "$h1"/1
  q "$d" GIR "$h2"/0
  q "$d" -p --sgid-to-dgid fe80::14:500:0:1-fe80::10:0:0:201
  q "$d" -p --sgid-to-dgid fe80::10:0:0:301-fe80::2:c903:0:3333
  q "$d" -p --sgid-to-dgid fe80::14:500:0:5-fe80::14:500:0:3
  q "$d" -p --sgid-to-dgid fe80::14:500:0:1-fe80::2:c903:0:1111 # no longer anyone's
  q "$d" -p --sgid-to-dgid fe80::2:c903:0:2222-fe80::10:0:0:101  # host-2's
  q "$d" -p --src-to-dst "$h1:$h3"
  q "$d" -p --src-to-dst "$h3:$h1"
  q "$d" -p
  q "$d" -p --slid "$h1"
  q "$d" -p --dlid "$h1"
  q "$d" -p --dgid fe80::14:500:0:1
  q "$d" -p -r 1 --pkey 0xffff
}

# drop_and_back DIR: host-5 registers two GUIDs, is unplugged, comes back: its aliases are gone
# and GUID 0 at the same entries gives back the GUIDs assigned there.
drop_and_back() {
  local d=$1 h5 i
  h5=$(lid_of 0x0010000000000501)
  sa "$d" set "$h5" 0 1=0 2=0x0002c90300005555
  ibsim_cmd 'Unlink "H-0010000000000500"'
  for i in $(seq 1 100); do
    SIM_HOST=$ASK sim saquery GIR "$h5" 2>/dev/null | grep -q "GUIDInfo Record" || break
    sleep 0.2
  done
  check "$d: host-5 gone from the SA (after $i polls)" test "$i" -lt 100
  ibsim_cmd 'ReLink "H-0010000000000500"'
  for i in $(seq 1 100); do
    SIM_HOST=$ASK sim saquery GIR "$h5" 2>/dev/null | grep -q "GUIDInfo Record" && break
    sleep 0.2
  done
  check "$d: host-5 back in the SA (after $i polls)" test "$i" -lt 100
  sa "$d" get "$h5" 0
  sa "$d" set "$h5" 0 1=0 2=0
}

printf 'force_log_flush TRUE\nsweep_interval 1\n' >osm.conf
IBSIM_CONSOLE=1 start_ibsim tree.topo
mkdir -p osm
OSM_CACHE_DIR=$WORK/osm OSM_TMP_DIR=$WORK/osm LD_PRELOAD="$UMAD2SIM" opensm -F osm.conf -R ftree \
  -f "$WORK/osm/osm.log" >osm.out 2>&1 &
osm=$!
SIM_PIDS+=("$osm")
check "OpenSM is up" wait_log osm/osm.log "SUBNET UP" 1 30
sequence osm.sa
drop_and_back osm.sa
SIM_HOST=$ASK sim saquery -c >osm.sa/cpi 2>&1
stop_daemon "$osm"
stop_ibsim

IBSIM_CONSOLE=1 start_ibsim tree.topo
rm -rf state && mkdir -p state && cp osm/guid2lid state/guid2lid
printf 'sweep_interval 1\n' >sm.conf
start_cloudsmd_daemon sm.log -R ftree -c sm.conf --state-dir state
sequence ours.sa
drop_and_back ours.sa
SIM_HOST=$ASK sim saquery -c >ours.sa/cpi 2>&1

answers=$(grep -c '^status\|dump' osm.sa/seq)
check "OpenSM gave answers to compare ($answers)" test "$answers" -ge 55
if cmp -s osm.sa/seq ours.sa/seq; then
  echo "ok: every answer equals OpenSM's ($(wc -l <osm.sa/seq) lines)"
  CHECKS=$((CHECKS + 1))
else
  fail "answers differ from OpenSM's:"
  diff osm.sa/seq ours.sa/seq | head -40
fi
expect_eq "assigned GUIDs handed out" 7 \
  "$(grep -o '0x14050000000[0-9a-f]*' ours.sa/seq | sort -u | wc -l)"
before=$(grep -A1 "set [0-9]* 0 1=0 2=0x0002c90300005555" ours.sa/seq | awk 'NR == 2 {print $11}')
expect_eq "host-5 got its assigned GUID back" "$before" "$(tail -1 ours.sa/seq | awk '{print $11}')"
# ClassPortInfo: both advertise IsAdditionalGUIDsSupported (CapabilityMask2 bit 5); OpenSM
# advertises more (multicast, QoS, ...) that cloudsm does not have.
for sm in osm ours; do
  cap2=$(sed -n 's/^[[:space:]]*Capability mask 2\.*//p' $sm.sa/cpi)
  check "$sm advertises IsAdditionalGUIDsSupported (CapMask2 $cap2)" test $((cap2 & 0x20)) -eq 32
done
# ibsim refuses GUIDInfo Sets: both SMs sent them, heard the refusal, and kept their view.
check "OpenSM's GUIDInfo Sets refused by ibsim (ERR 3111)" \
  grep -q "ERR 3111: Received MAD with error status = 0x8" osm/osm.log
refused=$(grep -c 'Set GUIDInfo([0-9]*) to .*refused (status 0x0008)' sm.log)
osm_sets=$(grep -A1 "ERR 3111" osm/osm.log | grep -c "SubnGetResp(GUIDInfo)")
echo "    GUIDInfo Sets: OpenSM $osm_sets (one per request that changed a block), cloudsmd $refused"
check "cloudsmd's GUIDInfo Sets refused by ibsim and logged ($refused)" test "$refused" -ge 5
check "no more of them than OpenSM's ($osm_sets)" test "$refused" -le "$osm_sets"
check "cloudsmd counted them" grep -q "alias GUIDs: [0-9]* GUIDInfo blocks sent, [1-9]" sm.log
check "cloudsmd dropped host-5's aliases when it went" \
  grep -q "alias GUIDs: port 0x0010000000000501 is gone: 2 dropped" sm.log
check "cloudsmd still running" kill -0 "$daemon"
stop_daemon "$daemon"
expect_eq "cloudsmd stops cleanly" 0 $?
finish
