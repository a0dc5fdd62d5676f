#!/usr/bin/env bash
# LFT files against the real OpenSM, on an ibsim fabric:
#  1. OpenSM routes it twice (ftree, then minhop; same guid2lid), writing two dumps.
#     `cloudsm lft diff` must count the changed blocks that an independent count (here, in
#     bash) finds, and our guid2lid reader/writer must reproduce OpenSM's file.
#  2. Our writers' output (both formats) loads into OpenSM with `-R file -U`, and dump_fts
#     then shows exactly the tables we wrote.
#  3. Tables cloudsm routed itself load the same way and are what the switches then hold.
source "$(dirname "$0")/../lib/common.sh"
require_oracles ibsim opensm dump_fts smpquery

"$CLOUDSM" topo gen pgft "2;4,4;1,2;1,2" --hosts-per-leaf 3 -o "$WORK/fabric.topo" || fail "gen"
start_ibsim "$WORK/fabric.topo"

run_opensm "$WORK/ftree" ftree || fail "opensm ftree"
grep -q "ftree tables configured on all switches" "$WORK/ftree/osm.log" ||
  fail "OpenSM fell back from ftree (see $WORK/ftree/osm.log)"
mkdir -p "$WORK/minhop"
cp "$WORK/ftree/guid2lid" "$WORK/minhop/guid2lid"
run_opensm "$WORK/minhop" minhop || fail "opensm minhop"
check "both dumps written" test -s "$WORK/ftree/opensm-lfts.dump" -a -s "$WORK/minhop/opensm-lfts.dump"
check "same LIDs in both runs" cmp -s "$WORK/ftree/guid2lid" "$WORK/minhop/guid2lid"

# guid2lid: our LID tool, fed OpenSM's file, writes it back unchanged (same set of entries).
"$CLOUDSM" topo lids "$WORK/fabric.topo" --guid2lid "$WORK/ftree/guid2lid" -o "$WORK/guid2lid.ours"
check "guid2lid round trip keeps OpenSM's LIDs" \
  cmp -s <(grep . "$WORK/ftree/guid2lid" | sort) <(grep . "$WORK/guid2lid.ours" | sort)

# Independent block count: (switch, 64-LID block) pairs where any entry differs.
declare -A old new blocks
load() { # load FILE ARRAYNAME
  local -n table=$2
  local guid="" line lid port
  while read -r line; do
    if [[ $line == "Unicast lids"* ]]; then
      guid=${line##* guid }; guid=${guid%% *}
    elif [[ $line =~ ^0x([0-9a-fA-F]+)\ +([0-9]+) ]]; then
      lid=$((16#${BASH_REMATCH[1]})); port=$((10#${BASH_REMATCH[2]}))
      table["$guid $lid"]=$port
    fi
  done <"$1"
}
load "$WORK/ftree/opensm-lfts.dump" old
load "$WORK/minhop/opensm-lfts.dump" new
declare -A seen
entries=0
for key in "${!old[@]}" "${!new[@]}"; do
  [[ -n "${seen[$key]:-}" ]] && continue
  seen[$key]=1
  if [[ "${old[$key]:-255}" != "${new[$key]:-255}" ]]; then
    entries=$((entries + 1))
    blocks["${key% *} $((${key#* } / 64))"]=1
  fi
done
"$CLOUDSM" lft diff --json "$WORK/ftree/opensm-lfts.dump" "$WORK/minhop/opensm-lfts.dump" >"$WORK/diff.json"
expect_eq "lft diff exits 3: the two engines' tables differ" 3 $?
cat "$WORK/diff.json"
expect_eq "blocks changed ftree -> minhop" "${#blocks[@]}" "$(json_get "$WORK/diff.json" blocks_changed)"
expect_eq "entries changed ftree -> minhop" "$entries" "$(json_get "$WORK/diff.json" entries_changed)"
check "the two engines really differ here" test "$entries" -gt 0

# Load our writers' output into OpenSM. The switches hold minhop's tables now; we load ftree's
# tables as our writer wrote them, so a no-op load could not pass.
for format in ibroute osm; do
  "$CLOUDSM" lft convert "$WORK/ftree/opensm-lfts.dump" --format $format -o "$WORK/ours.$format" ||
    fail "convert to $format"
  mkdir -p "$WORK/load-$format"
  cp "$WORK/ftree/guid2lid" "$WORK/load-$format/guid2lid"
  run_opensm "$WORK/load-$format" file -U "$WORK/ours.$format" || fail "opensm -R file ($format)"
  grep -q "file tables configured on all switches" "$WORK/load-$format/osm.log" ||
    fail "OpenSM did not route with the file engine ($format)"
  sim dump_fts >"$WORK/fts.$format" 2>/dev/null || fail "dump_fts"
  "$CLOUDSM" lft diff --json "$WORK/ours.$format" "$WORK/fts.$format" >"$WORK/load-$format.json"
  expect_eq "$format file loaded by OpenSM: blocks differing in the switches" 0 \
    "$(json_get "$WORK/load-$format.json" blocks_changed)"
  expect_eq "$format file: switches compared" "$(json_get "$WORK/diff.json" switches_old)" \
    "$(json_get "$WORK/load-$format.json" switches_new)"
  # Go back to minhop's tables so the next format's load is not a no-op either.
  run_opensm "$WORK/minhop" minhop || fail "opensm minhop again"
done
# Tables cloudsm computed itself (ftree on OpenSM's LIDs), loaded into OpenSM: dump_fts must show
# exactly them. The switches hold minhop's tables before, which differ.
"$CLOUDSM" route -R ftree "$WORK/fabric.topo" --guid2lid "$WORK/ftree/guid2lid" \
  -o "$WORK/ours-ftree.dump" --json >"$WORK/ours-ftree.json" || fail "cloudsm route"
expect_eq "cloudsm routed with ftree itself" ftree "$(json_get "$WORK/ours-ftree.json" engine)"
sim dump_fts >"$WORK/fts.before" 2>/dev/null || fail "dump_fts before"
"$CLOUDSM" lft diff --json "$WORK/fts.before" "$WORK/ours-ftree.dump" >"$WORK/before.json"
check "switches held other tables before the load" \
  test "$(json_get "$WORK/before.json" blocks_changed)" -gt 0
mkdir -p "$WORK/load-ours"
cp "$WORK/ftree/guid2lid" "$WORK/load-ours/guid2lid"
run_opensm "$WORK/load-ours" file -U "$WORK/ours-ftree.dump" || fail "opensm -R file (ours)"
sim dump_fts >"$WORK/fts.after" 2>/dev/null || fail "dump_fts after"
"$CLOUDSM" lft diff --json "$WORK/ours-ftree.dump" "$WORK/fts.after" >"$WORK/after.json"
expect_eq "our ftree tables in the switches: blocks differing" 0 \
  "$(json_get "$WORK/after.json" blocks_changed)"
"$CLOUDSM" lft check "$WORK/fabric.topo" "$WORK/fts.after" --guid2lid "$WORK/ftree/guid2lid" >/dev/null
expect_eq "lft check on what the switches hold" 0 $?
stop_ibsim
finish
