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

# 4-ary-3-tree: 64 hosts, 48 switches; S-0020000200000000 port 5 goes up to root
# S-0020000300000000 port 1. Roots: the level-3 switches.
"$CLOUDSM" topo gen kary 4 3 -o tree.topo || fail "topo gen"
sed -nE 's/^switchguid=0x(200003[0-9a-f]+).*/0x00\1/p' tree.topo >roots.guids
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
  ibsim_cmd 'Unlink "S-0020000200000000"[5]'
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
kill -TERM "$daemon"; wait "$daemon"; stop_ibsim

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

finish
