#!/usr/bin/env bash
# Fast reconfiguration live on ibsim: the same cable cut (ibsim console Unlink) under
# `reconfig_engine slimupdate` and under ftree (root GUIDs given, as OpenSM routes a damaged tree).
# slimupdate sends fewer LFT blocks, every CA pair stays connected (`cloudsm lft check` on
# dump_fts), its tables are what `cloudsm route -R slimupdate --previous` computes offline from the
# tables before, and the paths and entries it reports are what `cloudsm lft diff --topology`
# counts. Then `cloudsm sm reroute`: slimupdate on an unchanged fabric sends nothing; a sub-tree
# re-routing writes only the sub-tree's switches; mftree keeps its metabase across a restart.
source "$(dirname "$0")/../lib/common.sh"
require_oracles ibsim ibnetdiscover dump_fts
cd "$WORK" || exit 1

# 16-ary-2-tree: 256 hosts, 32 switches, LIDs in 5 blocks per switch; leaf S-0020000100000000
# port 17 goes up to root S-0020000200000000 port 1. Roots: the level-2 switches.
"$CLOUDSM" topo gen kary 16 2 -o tree.topo || fail "topo gen"
sed -nE 's/^switchguid=0x(200002[0-9a-f]+).*/0x00\1/p' tree.topo >roots.guids
expect_eq "16 roots" 16 "$(wc -l <roots.guids)"

# the N-th "lfts:" line's blocks sent (1 = the bring-up).
blocks_of_routing() {
  grep -E "lfts: [0-9]+ blocks read back" "$1" | sed -n "$2p" |
    sed -E 's/.*read back, ([0-9]+) blocks sent.*/\1/'
}

# run_cut NAME [config lines]: bring the tree up, cut the cable, wait for the repair; leaves
# NAME-before.dump, NAME-cut.dump, NAME-cut.topo, NAME.log, NAME.blocks.
run_cut() {
  local name=$1; shift
  mkdir -p "$name"
  IBSIM_CONSOLE=1 start_ibsim tree.topo
  { printf 'sweep_interval 2\nroot_guid_file %s/roots.guids\n' "$WORK"; printf '%s\n' "$@"; } \
    >"$name/sm.conf"
  start_cloudsmd_daemon "$name.log" -c "$name/sm.conf" --state-dir "$name/state"
  sim dump_fts >"$name-before.dump" 2>/dev/null || fail "$name: dump_fts"
  ibsim_cmd 'Unlink "S-0020000100000000"[17]'
  check "$name: repaired within a sweep" wait_log "$name.log" "sweep done" 1 20
  sleep 0.3
  sim ibnetdiscover >"$name-cut.topo" 2>/dev/null
  sim dump_fts >"$name-cut.dump" 2>/dev/null
  check "$name: every CA pair connected after the cut (lft check on dump_fts)" \
    "$CLOUDSM" lft check "$name-cut.topo" "$name-cut.dump"
  blocks_of_routing "$name.log" 2 >"$name.blocks"
  "$CLOUDSM" lft diff "$name-before.dump" "$name-cut.dump" --json >"$name-cut.json"
  expect_eq "$name: LFT blocks sent = blocks that differ" \
    "$(json_get "$name-cut.json" blocks_changed)" "$(cat "$name.blocks")"
}

run_cut ftree 'routing_engine ftree'
check "ftree re-routed the cut itself (no minhop fallback)" \
  grep -q "reconfiguration: ftree re-routed the whole fabric" ftree.log
stop_daemon "$daemon"; stop_ibsim

run_cut slim 'routing_engine ftree' 'reconfig_engine slimupdate'
check "slimupdate re-routed the cut" grep -q "reconfiguration: slimupdate re-routed the whole fabric" slim.log
ftree_blocks=$(cat ftree.blocks) slim_blocks=$(cat slim.blocks)
echo "cable cut: LFT blocks sent: ftree $ftree_blocks, slimupdate $slim_blocks"
check "slimupdate sends fewer LFT blocks than ftree ($slim_blocks < $ftree_blocks)" \
  test "$slim_blocks" -lt "$ftree_blocks"
check "slimupdate sends some (the cut cable's routes moved)" test "$slim_blocks" -gt 0

# Offline: the same tables from the tables before (LIDs from the SM's guid2lid).
"$CLOUDSM" route -R slimupdate slim-cut.topo --guid2lid slim/state/guid2lid \
  --previous slim-before.dump -o offline.lfts 2>/dev/null || fail "offline slimupdate"
"$CLOUDSM" lft diff offline.lfts slim-cut.dump --json >offline.json
expect_eq "live slimupdate tables = offline slimupdate --previous (entries differing)" 0 \
  "$(json_get offline.json entries_changed)"
# What the log reports = what lft diff counts over the cut fabric.
"$CLOUDSM" lft diff slim-before.dump slim-cut.dump --topology slim-cut.topo --json >paths.json
line=$(grep "reconfiguration: slimupdate" slim.log | head -n 1)
grep -E "route: slimupdate|lfts: .* blocks sent|reconfiguration: slimupdate" slim.log | sed -n 2,4p
expect_eq "reported paths changed = lft diff's" "$(json_get paths.json paths_changed)" \
  "$(sed -E 's/.*: ([0-9]+) paths changed.*/\1/' <<<"$line")"
expect_eq "reported LFT blocks = lft diff's" "$(json_get paths.json blocks_changed)" \
  "$(sed -E 's/.* ([0-9]+) LFT blocks sent.*/\1/' <<<"$line")"
check "the phases are timed" grep -qE "build [0-9.]+ ms.*, route [0-9.]+ ms, distribute [0-9.]+ ms \(Eq. 1 predicted" <<<"$line"

# On demand: nothing changed, so slimupdate keeps every route and sends nothing.
"$CLOUDSM" sm reroute slimupdate -d slim/state --json >same.json
expect_eq "sm reroute slimupdate, nothing changed: blocks sent" 0 "$(json_get same.json blocks_sent)"
expect_eq "sm reroute slimupdate, nothing changed: paths changed" 0 "$(json_get same.json paths_changed)"
expect_eq "sm reroute slimupdate: the machinery was kept" true "$(json_get same.json build_kept)"
stop_daemon "$daemon"; stop_ibsim

# Sub-tree re-routing on demand, on a 4-ary-3-tree: the pod of hosts 0 and 5 (leaves 0 and 1:
# the first two-level sub-tree, leaves 0x00200001000000{00..03}, middles 0x00200002000000{00..03})
# with noftree and an order (hosts 1 and 2 first). Only the pod's switches are written.
"$CLOUDSM" topo gen kary 4 3 -o k4n3.topo || fail "topo gen"
start_ibsim k4n3.topo
mkdir -p sub
start_cloudsmd_daemon sub.log -R ftree --state-dir sub/state
sim dump_fts >sub-before.dump 2>/dev/null
printf '0x0010000000000101\n0x0010000000000201\n' >order.guids
"$CLOUDSM" sm reroute noftree -d sub/state --subtree 0x0010000000000001,0x0010000000000501 \
  --order order.guids --json >sub.json
expect_eq "sub-tree: its 8 switches" 8 "$(json_get sub.json subtree_switches)"
check "sub-tree: some blocks sent" test "$(json_get sub.json blocks_sent)" -gt 0
sim ibnetdiscover >sub-now.topo 2>/dev/null
sim dump_fts >sub-after.dump 2>/dev/null
check "sub-tree: every CA pair connected (lft check on dump_fts)" \
  "$CLOUDSM" lft check sub-now.topo sub-after.dump
"$CLOUDSM" lft diff sub-before.dump sub-after.dump --per-switch >sub-diff.txt
outside=$(grep -E '^ *0x' sub-diff.txt | grep -vcE '0x002000010000000[0-3]|0x002000020000000[0-3]')
expect_eq "sub-tree: no switch outside the pod changed" 0 "$outside"
expect_eq "sub-tree: blocks sent = blocks that differ" \
  "$(sed -nE 's/^blocks +([0-9]+) changed.*/\1/p' sub-diff.txt)" "$(json_get sub.json blocks_sent)"
"$CLOUDSM" route -R noftree k4n3.topo --guid2lid sub/state/guid2lid --previous sub-before.dump \
  --subtree 0x0010000000000001,0x0010000000000501 --order order.guids -o sub-offline.lfts \
  2>/dev/null || fail "offline sub-tree re-routing"
"$CLOUDSM" lft diff sub-offline.lfts sub-after.dump --json >sub-offline.json
expect_eq "sub-tree: live tables = offline cloudsm route --subtree (entries differing)" 0 \
  "$(json_get sub-offline.json entries_changed)"

# mftree: phase I goes to STATE_DIR/metabase.sqlite; after a restart it is loaded, not computed.
"$CLOUDSM" sm reroute mftree -d sub/state --json >mf1.json
expect_eq "mftree: phase I computed" false "$(json_get mf1.json build_kept)"
check "mftree: the metabase is kept in the state directory" test -s sub/state/metabase.sqlite
stop_daemon "$daemon"
start_cloudsmd_daemon sub2.log --state-dir sub/state -R mftree
check "mftree after a restart: phase I loaded from the metabase" \
  grep -qE "route: mftree tables .*build [0-9.]+ ms \(kept\)" sub2.log
sim ibnetdiscover >mf-now.topo 2>/dev/null
sim dump_fts >mf.dump 2>/dev/null
check "mftree: every CA pair connected (lft check on dump_fts)" "$CLOUDSM" lft check mf-now.topo mf.dump

finish
