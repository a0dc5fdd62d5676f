#!/usr/bin/env bash
# cloudsm route -R slimupdate --previous: on an unchanged fabric it keeps the tables it is given
# (ftree's, or its own) and sends nothing; after a cable cut it keeps what still works and
# changes fewer entries than ftree re-routing from scratch (with the root GUIDs OpenSM needs for
# a damaged tree), and its tables pass lft check; a bad --previous is refused with file:line and
# nothing is written.
source "$(dirname "$0")/../lib/common.sh"

"$CLOUDSM" topo gen kary 8 2 --lids -o "$WORK/k8.topo" || fail "gen"
"$CLOUDSM" route -R ftree "$WORK/k8.topo" -o "$WORK/ftree.lfts" || fail "ftree"
"$CLOUDSM" route -R slimupdate "$WORK/k8.topo" --previous "$WORK/ftree.lfts" \
  -o "$WORK/kept.lfts" || fail "slimupdate from ftree's tables"
check "ftree's balanced tables are kept entry for entry" cmp -s "$WORK/ftree.lfts" "$WORK/kept.lfts"
"$CLOUDSM" route -R slimupdate "$WORK/k8.topo" -o "$WORK/slim0.lfts" || fail "first run"
check "a first run is valid" "$CLOUDSM" lft check "$WORK/k8.topo" "$WORK/slim0.lfts"

# Cut one leaf-to-root cable (a fixed seed: the same cable every run).
"$CLOUDSM" topo mutate "$WORK/k8.topo" --unlink 1 --seed 5 -o "$WORK/cut.topo" || fail "mutate"
"$CLOUDSM" route -R slimupdate "$WORK/cut.topo" --previous "$WORK/slim0.lfts" --no-fallback \
  -o "$WORK/slim1.lfts" || fail "slimupdate after the cut"
check "slimupdate's tables after the cut are valid" \
  "$CLOUDSM" lft check "$WORK/cut.topo" "$WORK/slim1.lfts"
# The roots: the level-2 switches (node GUIDs 0x0020000200000000 + j).
sed -nE 's/^switchguid=0x(200002[0-9a-f]+).*/0x00\1/p' "$WORK/k8.topo" >"$WORK/roots"
expect_eq "eight roots" 8 "$(wc -l <"$WORK/roots")"
"$CLOUDSM" route -R ftree "$WORK/cut.topo" --root-guids "$WORK/roots" --no-fallback \
  -o "$WORK/ftree1.lfts" || fail "ftree after the cut"
entries() { "$CLOUDSM" lft diff "$1" "$2" --json | sed -nE 's/.*"entries_changed": ([0-9]+).*/\1/p'; }
slim=$(entries "$WORK/slim0.lfts" "$WORK/slim1.lfts")
ftree=$(entries "$WORK/ftree.lfts" "$WORK/ftree1.lfts")
check "slimupdate changes some entries ($slim)" test "$slim" -gt 0
check "fewer than ftree ($slim < $ftree)" test "$slim" -lt "$ftree"

printf 'Unicast lids [0-0x3] of switch Lid 1 guid 0x1 (x):\n0x0001 000 : (Switch portguid 0x1: x)\n0xzz\n' \
  >"$WORK/bad.lfts"
"$CLOUDSM" route -R slimupdate "$WORK/k8.topo" --previous "$WORK/bad.lfts" -o "$WORK/out.lfts" \
  2>"$WORK/bad.err"
check "a bad --previous fails" test $? -eq 1
check "with file:line" grep -q "bad.lfts:3:" "$WORK/bad.err"
check "and writes nothing" test ! -e "$WORK/out.lfts"
"$CLOUDSM" route -R slimupdate "$WORK/k8.topo" --previous "$WORK/missing.lfts" >/dev/null 2>&1
check "a missing --previous fails" test $? -eq 1

finish
