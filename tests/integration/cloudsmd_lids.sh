#!/usr/bin/env bash
# cloudsmd's LIDs on ibsim (issue 12, items 2 and 3):
#  - guid2lid LIDs beyond the switches' LinearFDBCap (ibsim's switches have 30720 entries; the
#    stored LIDs are 0xbfb4..): every `cloudsmd -o` run re-assigns them below the cap with a
#    WARN naming each port, LinearFDBTop stays below the cap, and every switch forwards every LID
#    (`cloudsm lft check` on dump_fts), run after run;
#  - a switch whose tables cannot be written (ibsim drops its LinearForwardingTable MADs) makes
#    `cloudsmd -o` exit 1 with the failures and the switch in the log;
#  - LIDs of ports that go away are held: two hosts cleared (ibsim Clear) and linked back in the
#    other order keep their LIDs, and so does a switch unlinked completely and relinked; guid2lid
#    keeps every entry meanwhile;
#  - --reassign-lids numbers the fabric afresh.
source "$(dirname "$0")/../lib/common.sh"
require_oracles ibsim ibnetdiscover dump_fts smpquery
CLOUDSMD=${CLOUDSM_BUILD_DIR:?}/cloudsmd
cd "$WORK" || exit 1

# 2-ary-3-tree: 8 hosts (H-0010000000000000 .. 700, two per leaf), 12 switches: 20 LIDs.
"$CLOUDSM" topo gen kary 2 3 -o tree.topo || fail "topo gen"
IBSIM_CONSOLE=1 start_ibsim tree.topo

# lid_of GUID: the LID guid2lid gives a port GUID (decimal; empty if none).
lid_of() {
  local hex
  hex=$(awk -v g="$1" '$1 == g { print $2 }' state/guid2lid)
  [[ -n "$hex" ]] && echo $((hex))
}
# max_lid: the highest LID in guid2lid (decimal).
max_lid() {
  local guid min max top=0
  while read -r guid min max; do
    [[ $guid == 0x* && $((max)) -gt $top ]] && top=$((max))
  done <state/guid2lid
  echo "$top"
}
entries() { grep -c '^0x' state/guid2lid; }
# every_lid_forwarded NAME: every switch forwards every CA pair (lft check on what they hold).
every_lid_forwarded() {
  sim ibnetdiscover >"$1.topo" 2>/dev/null
  sim dump_fts >"$1.dump" 2>/dev/null
  "$CLOUDSM" lft check "$1.topo" "$1.dump" >"$1.check" 2>&1
}

# ---- Item 3: stored LIDs beyond LinearFDBCap ----
sim "$CLOUDSMD" -R ftree -o -d state -f first.log >/dev/null 2>&1
expect_eq "first run" 0 $?
expect_eq "first run: 20 LIDs" 20 "$(entries)"
awk 'NF == 3 { printf "%s 0x%04x 0x%04x\n", $1, 49076 + i, 49076 + i; i++; next } { print }' \
  state/guid2lid >high.guid2lid
cp high.guid2lid state/guid2lid
cap=$(sim smpquery -D switchinfo 0,1 2>/dev/null | sed -n 's/^LinearFdbCap:\.*//p')
expect_eq "ibsim's LinearFDBCap" 30720 "$cap"
for run in 1 2 3; do
  sim "$CLOUDSMD" -R ftree -o -d state -f "high-$run.log" >/dev/null 2>&1
  expect_eq "high LIDs, run $run: exit 0" 0 $?
  check "high LIDs, run $run: 0 failures" grep -q "subnet up: .*, 0 failures" "high-$run.log"
  every_lid_forwarded "high-$run"
  expect_eq "high LIDs, run $run: every switch forwards every LID (lft check)" 0 $?
  max=$(max_lid)
  check "high LIDs, run $run: guid2lid LIDs below the cap (max $max)" test "$max" -lt "$cap"
  expect_eq "high LIDs, run $run: guid2lid entries" 20 "$(entries)"
done
expect_eq "every stored LID re-assigned with a WARN" 20 \
  "$(grep -c 'WARN .*stored LIDs 0xbf[0-9a-f]*-0xbf[0-9a-f]* are beyond .*re-assigned LID' high-1.log)"
check "the WARN names the port GUID" grep -q "port GUID 0x0010000000000001: stored LIDs 0xbfb4" \
  high-1.log
expect_eq "second run: nothing to re-assign" 0 "$(grep -c 're-assigned' high-2.log)"
bad_top=0
for lid in $(awk '$1 ~ /^0x002/ { print $2 }' state/guid2lid); do
  top=$(sim smpquery switchinfo "$lid" 2>/dev/null | sed -n 's/^LinearFdbTop:\.*//p')
  [[ -n "$top" && "$top" -lt "$cap" ]] || bad_top=$((bad_top + 1))
done
expect_eq "every switch's LinearFDBTop below its LinearFDBCap" 0 "$bad_top"

# A switch that drops its LinearForwardingTable MADs (attribute 0x19): its tables cannot be
# written, and -o says so. Fresh LFTs first (a restarted ibsim), so that every block is sent.
stop_ibsim
IBSIM_CONSOLE=1 start_ibsim tree.topo
ibsim_cmd 'Error "S-0020000200000001" 100 25'
sim "$CLOUDSMD" -R ftree -o -d state -f refused.log --timeout 50 --retries 1 >/dev/null 2>&1
expect_eq "LFT MADs dropped by one switch: -o exits 1" 1 $?
check "the failures are in the log" grep -qE "subnet up: .*, [1-9][0-9]* failures?" refused.log
check "the switch is named" grep -q "Set LinearForwardingTable(.*) to 0x0020000200000001" refused.log
ibsim_cmd 'Error "S-0020000200000001" 0'

# ---- Item 2: LIDs of ports that go away ----
printf 'sweep_interval 1\n' >sm.conf
start_cloudsmd_daemon sm.log -R ftree -c sm.conf -d state
h2=0x0010000000000201 h3=0x0010000000000301 leaf=0x0020000100000002
lid2=$(lid_of $h2) lid3=$(lid_of $h3) leaf_lid=$(lid_of $leaf)
check "hosts 2 and 3 have LIDs ($lid2, $lid3)" test -n "$lid2" -a -n "$lid3" -a "$lid2" != "$lid3"

# wait_sweeps N: until the log holds N "sweep done" lines.
wait_sweeps() { wait_log sm.log "sweep done" "$1"; }
# host_lid GUID: the LID port 1 of that host holds (smpquery, GUID resolved by cloudsmd's SA).
host_lid() {
  sim smpquery -G portinfo "$1" 1 2>/dev/null | sed -n 's/^Lid:\.*//p'
}

n=$(grep -c "sweep done" sm.log)
ibsim_cmd 'Clear "H-0010000000000200"'
ibsim_cmd 'Clear "H-0010000000000300"'
check "re-swept without hosts 2 and 3" wait_sweeps $((n + 1))
expect_eq "guid2lid keeps the two absent hosts" 20 "$(entries)"
check "the lids line counts 2 held" grep -q "lids: 18 ports, 2 held for absent ports" sm.log
n=$(grep -c "sweep done" sm.log)
ibsim_cmd 'Link "H-0010000000000300"[1] "S-0020000100000001"[2]'
check "re-swept with host 3 back" wait_sweeps $((n + 1))
n=$(grep -c "sweep done" sm.log)
ibsim_cmd 'Link "H-0010000000000200"[1] "S-0020000100000001"[1]'
check "re-swept with host 2 back" wait_sweeps $((n + 1))
expect_eq "host 3 (back first) keeps its LID" "$lid3" "$(lid_of $h3)"
expect_eq "host 2 (back second) keeps its LID" "$lid2" "$(lid_of $h2)"
expect_eq "host 3's port holds its LID (smpquery)" "$lid3" "$(host_lid $h3)"
expect_eq "host 2's port holds its LID (smpquery)" "$lid2" "$(host_lid $h2)"

# A leaf unlinked completely (with its two hosts) and relinked.
n=$(grep -c "sweep done" sm.log)
ibsim_cmd 'Unlink "S-0020000100000002"'
check "re-swept without the leaf" wait_sweeps $((n + 1))
expect_eq "guid2lid keeps the absent leaf and hosts" 20 "$(entries)"
n=$(grep -c "sweep done" sm.log)
ibsim_cmd 'ReLink "S-0020000100000002"'
check "re-swept with the leaf back" wait_sweeps $((n + 1))
for _ in $(seq 1 50); do
  [[ $(grep -c "lids: 20 ports" sm.log) -ge 2 ]] && break
  sleep 0.1
done
expect_eq "the leaf keeps its LID" "$leaf_lid" "$(lid_of $leaf)"
expect_eq "the leaf's port 0 holds it (smpquery)" "$leaf_lid" \
  "$(sim smpquery -G portinfo $leaf 0 2>/dev/null | sed -n 's/^Lid:\.*//p')"
every_lid_forwarded back
expect_eq "every switch forwards every LID after all that (lft check)" 0 $?
stop_daemon "$daemon"
expect_eq "cloudsmd stops cleanly" 0 $?

# reassign_lids: guid2lid and the LIDs ports hold are ignored; the fabric is numbered afresh in
# fabric order (the SM's own port first).
cp high.guid2lid state/guid2lid
sim "$CLOUDSMD" -R ftree -o -r -d state -f reassign.log >/dev/null 2>&1
expect_eq "--reassign-lids: exit 0" 0 $?
check "--reassign-lids: guid2lid ignored" grep -q "reassign_lids: ignoring" reassign.log
expect_eq "--reassign-lids: the SM port is LID 1" 1 "$(lid_of 0x0010000000000001)"
expect_eq "--reassign-lids: LIDs 1..20" 20 \
  "$(max_lid)"
finish
