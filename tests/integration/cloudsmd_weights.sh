#!/usr/bin/env bash
# cloudsmd with node weights (node_weights_file / --node-weights) on ibsim, checked against the
# tables `cloudsm route --weights` computes offline for the same LIDs:
#
#   bad file  a weight 0 or a word for a GUID stops cloudsmd with file:line and exit 1 before it
#             opens the port (umad2sim never attaches, no state directory appears)
#   wftree    dump_fts shows the offline weighted tables, which are not ftree's; a restart with
#             the same weights sends no LFT block
#   SIGHUP    a running daemon whose weights change routes again and sends exactly the blocks
#             `cloudsm lft diff` counts between the old and the new offline tables; the same
#             content again is no change; content that routes the same sends 0 blocks
#   pftree    pFTree-Wt (Fig. 12, d heavy): dump_fts shows the offline weighted pftree tables,
#             which are not the unweighted ones
source "$(dirname "$0")/../lib/common.sh"
require_oracles ibsim dump_fts
CLOUDSMD=${CLOUDSM_BUILD_DIR:?}/cloudsmd
cd "$WORK" || exit 1 # umad2sim writes its sysfs copy into the current directory

host_guid() { printf '0x%016x' $((0x0010000000000001 + $1 * 256)); } # topo gen's host-N port
heavy() { # heavy N...: a weights file where these hosts weigh 100 and the rest 1
  local h
  echo "# port GUID  weight"
  for h; do echo "$(host_guid "$h") 100"; done
}
once() { timeout -s KILL 120 env LD_PRELOAD="$UMAD2SIM" "$CLOUDSMD" -o "$@"; }
# offline NAME ENGINE STATE [options]: NAME.dump, routed by cloudsm on the LIDs cloudsmd gave
offline() {
  local name=$1 engine=$2 state=$3; shift 3
  "$CLOUDSM" route -R "$engine" fabric.topo --guid2lid "$state/guid2lid" --no-fallback \
    -o "$name.dump" "$@" >/dev/null || fail "offline $name"
}
diff_of() { # diff_of OLD NEW KEY: a count of `cloudsm lft diff --json`
  "$CLOUDSM" lft diff "$1" "$2" --json >diff.json
  json_get diff.json "$3"
}
# same_tables WHAT OFFLINE DUMP SWITCHES: every switch in both, no entry differs (a switch missing
# from the dump would cost no entry: so the switches are counted too)
same_tables() {
  "$CLOUDSM" lft diff "$2" "$3" --json >same.json
  expect_eq "$1: switches in dump_fts" "$4" "$(json_get same.json switches_new)"
  expect_eq "$1: switches only offline" 0 "$(json_get same.json switches_removed)"
  expect_eq "$1: entries differing from the offline tables" 0 \
    "$(json_get same.json entries_changed)"
}
lfts_sent() { sed -nE 's/.*lfts: ([0-9]+) blocks read back, ([0-9]+) blocks sent.*/\1 \2/p' "$1"; }

# 8-ary 2-level XGFT: 64 hosts on 8 leaves under 8 spines, 80 LIDs: two LFT blocks a switch, so
# blocks and switches count apart. Hosts 1, 2, 9, 40 heavy, then host 63 alone.
"$CLOUDSM" topo gen xgft "2;8,8;1,8" -o fabric.topo || fail "topo gen"
heavy 1 2 9 40 >a.w
heavy 63 >b.w
named=0
for guid in $(awk '/^0x/ {print $1}' a.w b.w); do # the topology writes port GUIDs without 0x and zeros
  grep -q "^\[1\](${guid#0x00})" fabric.topo && named=$((named + 1))
done
expect_eq "the weights files name CA ports of the fabric" 5 "$named"

start_ibsim fabric.topo

# ---- bad weights files: file:line, exit 1, the port never opened ----
bad_run() { # bad_run NAME MESSAGE [options]: cloudsmd -o on a bad file
  local name=$1 message=$2; shift 2
  once --state-dir "$name-state" --log-file "$name.log" "$@" 2>"$name.err"
  expect_eq "$name: exit status" 1 $?
  check "$name: says file:line ($message)" grep -qF "$message" "$name.err"
  check "$name: the port was not opened (umad2sim did not attach)" \
    test "$(grep -c 'sim_connect' "$name.err")" -eq 0
  check "$name: nothing was logged but the error" test "$(wc -l <"$name.log")" -eq 1
  check "$name: no state directory" test ! -e "$name-state"
}
{ heavy 5; echo "$(host_guid 6) 0"; } >zero.w
bad_run zero "zero.w:3: weight 0 is not in 1..1000000" -R wftree --node-weights zero.w
{ heavy 5; echo "host-6 100"; } >word.w
printf 'routing_engine wftree\nnode_weights_file %s\n' "$WORK/word.w" >word.conf
bad_run word "word.w:3: expected a port GUID" -c word.conf

# ---- wftree: the weights make the tables, live ----
once --state-dir state --log-file a.log -R wftree --node-weights a.w
expect_eq "cloudsmd -o -R wftree --node-weights: exit status" 0 $?
check "routed with wftree" grep -q "route: wftree tables for 16 switches, LIDs 1..80" a.log
sim dump_fts >a.fts 2>/dev/null || fail "dump_fts"
offline wftree-a wftree state --weights a.w
offline ftree ftree state
same_tables "wftree, hosts 1 2 9 40 heavy" wftree-a.dump a.fts 16
moved=$(diff_of ftree.dump a.fts entries_changed)
check "and the weights made them differ from ftree's ($moved entries)" test "${moved:-0}" -gt 0

# A restart with the same state and weights reads the tables back and sends none.
once --state-dir state --log-file restart.log -R wftree --node-weights a.w
expect_eq "restart: exit status" 0 $?
expect_eq "restart: LFT blocks read back, sent" "32 0" "$(lfts_sent restart.log)"

# ---- SIGHUP: the weights file changes under a running daemon ----
cp a.w live.w
printf 'routing_engine wftree\nnode_weights_file %s\nsweep_interval 0\n' "$WORK/live.w" >sm.conf
start_cloudsmd_daemon daemon.log -c sm.conf --state-dir state
expect_eq "daemon start on the same weights: LFT blocks read back, sent" "32 0" \
  "$(lfts_sent daemon.log)"

cp b.w live.w
kill -HUP "$daemon"
wait_log daemon.log "SIGHUP: routed with" 1 20
offline wftree-b wftree state --weights b.w
expected=$(diff_of wftree-a.dump wftree-b.dump blocks_changed)
check "offline: the new weights change $expected of 32 blocks" test "${expected:-0}" -gt 0
sent=$(sed -nE 's/.*SIGHUP: routed with wftree, ([0-9]+) LFT blocks sent.*/\1/p' daemon.log)
expect_eq "SIGHUP: LFT blocks sent = the blocks lft diff counts" "$expected" "$sent"
sim dump_fts >b.fts 2>/dev/null || fail "dump_fts after SIGHUP"
same_tables "SIGHUP, host 63 heavy" wftree-b.dump b.fts 16

# The same content written again: no change. Then a line that names a host with the default
# weight: the file changed, the tables do not, so it routes again and sends 0 blocks.
cp b.w live.w
kill -HUP "$daemon"
wait_log daemon.log "SIGHUP: configuration read again" 2 20
echo "$(host_guid 7) 1" >>live.w
kill -HUP "$daemon"
wait_log daemon.log "SIGHUP: routed with" 2 20
sed -nE 's/^[^ ]+ +INFO +(SIGHUP: .*)$/\1/p' daemon.log >sighup.lines
cat >sighup.expected <<EOF
SIGHUP: configuration read again; changed: nothing; files changed: node_weights_file
SIGHUP: routed with wftree, $expected LFT blocks sent
SIGHUP: configuration read again; changed: nothing
SIGHUP: configuration read again; changed: nothing; files changed: node_weights_file
SIGHUP: routed with wftree, 0 LFT blocks sent
EOF
check "SIGHUP: new weights route, the same content does not, a weight-1 line sends 0 blocks" \
  diff sighup.expected sighup.lines
sim dump_fts >c.fts 2>/dev/null || fail "dump_fts after the last SIGHUP"
same_tables "after the last SIGHUP" wftree-b.dump c.fts 16
stop_daemon "$daemon"

# ---- pftree: pFTree-Wt, Fig. 12 ----
# Two leaves of four hosts a..h under two roots; green = a d g h, pink = b c e f; d weighs 100.
"$CLOUDSM" topo gen xgft "2;4,2;1,2" -o fabric.topo || fail "topo gen fig12"
cat >partitions.conf <<EOF
Default=0x7fff : ALL=full ;
green=0x0001 : $(host_guid 0)=full, $(host_guid 3)=full, $(host_guid 6)=full, $(host_guid 7)=full ;
pink=0x0002 : $(host_guid 1)=full, $(host_guid 2)=full, $(host_guid 4)=full, $(host_guid 5)=full ;
EOF
heavy 3 >d.w
printf 'routing_engine pftree\npartition_config_file %s\nnode_weights_file %s\n' \
  "$WORK/partitions.conf" "$WORK/d.w" >pftree.conf
start_ibsim fabric.topo
once -c pftree.conf --state-dir pstate --log-file pftree.log
expect_eq "cloudsmd -o -R pftree with weights: exit status" 0 $?
check "routed with pftree" grep -q "route: pftree tables for 4 switches" pftree.log
sim dump_fts >pftree.fts 2>/dev/null || fail "dump_fts pftree"
offline pftree-w pftree pstate --partitions partitions.conf --weights d.w
offline pftree pftree pstate --partitions partitions.conf
same_tables "pftree, d heavy" pftree-w.dump pftree.fts 4
moved=$(diff_of pftree.dump pftree.fts entries_changed)
check "and the weights made them differ from unweighted pftree's ($moved entries)" \
  test "${moved:-0}" -gt 0

finish
