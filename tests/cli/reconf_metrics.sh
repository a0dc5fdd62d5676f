#!/usr/bin/env bash
# Path modifications and the Eq. 1 time in `lft diff --topology`, node shutdowns in `topo mutate`
# (docs/reconfiguration.md): counts worked out by hand on ft2x2, LIDs kept across shutdowns, a
# cumulative sequence of mutations, re-routing after a shutdown counted over the live hosts only.
source "$(dirname "$0")/../lib/common.sh"

D="$CLOUDSM_TEST_DATA/lft"
NET="$D/ft2x2.net"

# --- OpenSM's ftree vs minhop tables on ft2x2 (tests/unit/test_lft_diff.c lists the 12 entries).
# The CA entries that differ: host2 (0x80) and host5 (0x100) on both spines, host1 (0x42) and
# host4 (0xc2) on spine1. Each spine entry moves to the other cable of the same leaf, so a pair
# changes when its route crosses that spine: leaf1 sends host2, host5 and host1 up to spine1 (or
# host2, host5 through both); leaf0 sends host4 up to spine1: 4 destinations x 3 sources = 12 of
# 30 pairs; 6 (switch, destination) entries.
"$CLOUDSM" lft diff "$D/ft2x2-ftree.dump" "$D/ft2x2-minhop.dump" --topology "$NET" \
  --guid2lid "$D/ft2x2.guid2lid" --t-smp 0.5 --json >"$WORK/ft2x2.json"
expect_eq "ft2x2 diff exits 3" 3 $?
for pair in sources:6 destinations:6 pairs:30 paths_changed:12 destinations_changed:4 \
            destination_entries_changed:6 entries_changed:12 blocks_changed:10 undelivered_old:0 \
            undelivered_new:0 sources_moved:0 t_smp_ms:0.5 predicted_ms:5; do
  expect_eq "ft2x2 ${pair%%:*}" "${pair#*:}" "$(json_get "$WORK/ft2x2.json" "${pair%%:*}")"
done
"$CLOUDSM" lft diff "$D/ft2x2-ftree.dump" "$D/ft2x2-minhop.dump" --topology "$NET" --t-smp 0.5 \
  >"$WORK/ft2x2.txt"
check "text: paths line" grep -q '^paths *12 of 30 CA pairs changed (6 sources)$' "$WORK/ft2x2.txt"
check "text: dests line" grep -q '^dests *4 of 6 destination LIDs changed; 6 (switch, destination) entries changed$' "$WORK/ft2x2.txt"
check "text: Eq. 1 line" grep -q '^predicted 5.000 ms to send them (Eq. 1: 10 blocks x 0.5 ms per SMP)$' "$WORK/ft2x2.txt"
"$CLOUDSM" lft diff "$D/ft2x2-ftree.dump" "$D/ft2x2-ftree.dump" --topology "$NET" --json >"$WORK/same.json"
expect_eq "same tables exit 0" 0 $?
expect_eq "same tables: no path changed" 0 "$(json_get "$WORK/same.json" paths_changed)"
"$CLOUDSM" lft diff "$D/ft2x2-ftree.dump" "$D/ft2x2-minhop.dump" --json >"$WORK/plain.json"
check "without --topology: no path keys" bash -c "! grep -q paths_changed '$WORK/plain.json'"
check "without --t-smp: no prediction" bash -c "! grep -q predicted_ms '$WORK/plain.json'"

run_usage() { # DESCRIPTION ARGS...
  local what=$1; shift
  "$CLOUDSM" lft diff "$@" >/dev/null 2>"$WORK/usage.err"
  expect_eq "$what exits 2" 2 $?
}
run_usage "--old-topology without --topology" "$D/ft2x2-ftree.dump" "$D/ft2x2-minhop.dump" --old-topology "$NET"
run_usage "--t-smp 0" "$D/ft2x2-ftree.dump" "$D/ft2x2-minhop.dump" --t-smp 0
run_usage "--t-smp abc" "$D/ft2x2-ftree.dump" "$D/ft2x2-minhop.dump" --t-smp abc
"$CLOUDSM" lft diff "$D/ft2x2-ftree.dump" "$D/ft2x2-minhop.dump" --topology "$WORK/none.topo" \
  >/dev/null 2>&1
expect_eq "missing topology exits 1" 1 $?

# --- Shutdowns: hosts leave, survivors keep their LIDs; two steps with two seeds accumulate.
"$CLOUDSM" topo gen kary 4 2 --lids -o "$WORK/k4.topo" || fail "gen"
"$CLOUDSM" topo mutate "$WORK/k4.topo" --shutdown-hosts 1 --seed 1 -o "$WORK/d1.topo" || fail "step 1"
"$CLOUDSM" topo mutate "$WORK/d1.topo" --shutdown-hosts 2 --seed 2 -o "$WORK/d3.topo" || fail "step 2"
"$CLOUDSM" topo info --json "$WORK/d3.topo" >"$WORK/d3.json"
expect_eq "3 hosts down: CAs" 13 "$(json_get "$WORK/d3.json" cas)"
expect_eq "3 hosts down: switches" 8 "$(json_get "$WORK/d3.json" switches)"
"$CLOUDSM" topo diff --lids "$WORK/k4.topo" "$WORK/d3.topo" --json >"$WORK/diff.json"
expect_eq "only the hosts differ" 3 "$(json_get "$WORK/diff.json" nodes_only_a)"
expect_eq "no LID or port changed" 0 "$(json_get "$WORK/diff.json" ports_changed)"
expect_eq "nothing new" 0 "$(json_get "$WORK/diff.json" nodes_only_b)"
# A topology without LIDs comes out with the ones the intact tree gets: the same file.
"$CLOUDSM" topo gen kary 4 2 -o "$WORK/k4-nolids.topo" || fail "gen without LIDs"
"$CLOUDSM" topo mutate "$WORK/k4-nolids.topo" --shutdown-hosts 1 --seed 1 -o "$WORK/d1b.topo" || fail "mutate"
check "LIDs assigned before the shutdown" cmp -s "$WORK/d1.topo" "$WORK/d1b.topo"
# --guid2lid: those LIDs, written out.
"$CLOUDSM" topo lids "$WORK/k4-nolids.topo" -o "$WORK/g2l" || fail "topo lids"
sed -i 's/^0x0010000000000001 0x0001 0x0001$/0x0010000000000001 0x0100 0x0100/' "$WORK/g2l"
"$CLOUDSM" topo mutate "$WORK/k4-nolids.topo" --guid2lid "$WORK/g2l" --unlink 1 -o "$WORK/g.topo" || fail "mutate --guid2lid"
check "guid2lid LID written" grep -q '(10000000000001) .*# lid 256 lmc 0' "$WORK/g.topo"
"$CLOUDSM" topo mutate "$WORK/k4.topo" --shutdown-hosts 17 >/dev/null 2>"$WORK/err"
expect_eq "17 of 16 hosts exits 1" 1 $?
check "says why" grep -q 'cannot shut 17 hosts down: the fabric has 16' "$WORK/err"
"$CLOUDSM" topo mutate "$WORK/k4.topo" --shutdown-hosts x >/dev/null 2>&1
expect_eq "bad count exits 2" 2 $?

# --- Re-routing after the shutdown: the 13 live hosts' pairs, all delivered.
"$CLOUDSM" route -R ftree "$WORK/k4.topo" -o "$WORK/k4.lfts" >/dev/null 2>&1 || fail "route intact"
"$CLOUDSM" route -R ftree "$WORK/d3.topo" -o "$WORK/d3.lfts" >/dev/null 2>&1 || fail "route after"
"$CLOUDSM" lft diff "$WORK/k4.lfts" "$WORK/d3.lfts" --topology "$WORK/d3.topo" \
  --old-topology "$WORK/k4.topo" --json >"$WORK/d.json"
expect_eq "live sources" 13 "$(json_get "$WORK/d.json" sources)"
expect_eq "live pairs" $((13 * 12)) "$(json_get "$WORK/d.json" pairs)"
expect_eq "new tables deliver all" 0 "$(json_get "$WORK/d.json" undelivered_new)"
expect_eq "old tables delivered all" 0 "$(json_get "$WORK/d.json" undelivered_old)"
# The new tables over the new fabric against themselves: nothing, whatever the old fabric.
"$CLOUDSM" lft diff "$WORK/d3.lfts" "$WORK/d3.lfts" --topology "$WORK/d3.topo" --json >"$WORK/z.json"
expect_eq "no change against itself" 0 "$(json_get "$WORK/z.json" paths_changed)"

# --- A cut cable: the old tables traced over the new fabric lose the routes that used it;
# over the old fabric they do not.
roots=$WORK/k4.roots
sed -n 's/^Switch.*"S-\(00200002[0-9a-f]*\)".*/0x\1/p' "$WORK/k4.topo" >"$roots"
"$CLOUDSM" topo mutate "$WORK/k4.topo" --unlink 1 --seed 4 -o "$WORK/cut.topo" || fail "cut"
"$CLOUDSM" route -R ftree "$WORK/cut.topo" --root-guids "$roots" --no-fallback -o "$WORK/cut.lfts" \
  >/dev/null 2>&1 || fail "route cut with roots"
"$CLOUDSM" lft diff "$WORK/k4.lfts" "$WORK/cut.lfts" --topology "$WORK/cut.topo" \
  --old-topology "$WORK/k4.topo" --json >"$WORK/cut.json"
expect_eq "over the old fabric: old delivered all" 0 "$(json_get "$WORK/cut.json" undelivered_old)"
check "some paths changed" test "$(json_get "$WORK/cut.json" paths_changed)" -gt 0
"$CLOUDSM" lft diff "$WORK/k4.lfts" "$WORK/cut.lfts" --topology "$WORK/cut.topo" --json >"$WORK/cut2.json"
check "over the new fabric: the cut cable's routes are lost" \
  test "$(json_get "$WORK/cut2.json" undelivered_old)" -gt 0
expect_eq "and the same paths changed" "$(json_get "$WORK/cut.json" paths_changed)" \
  "$(json_get "$WORK/cut2.json" paths_changed)"
finish
