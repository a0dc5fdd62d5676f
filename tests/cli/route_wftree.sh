#!/usr/bin/env bash
# cloudsm route -R wftree --weights (wFatTree's node weights): the tables are valid; no weights
# is the same as every node weighing 1; heavy nodes e, i, m get three different up links from
# leaf 1 (ftree gives them one); a bad weights file is refused with file:line, exit 1 and
# nothing written.
source "$(dirname "$0")/../lib/common.sh"

# Four leaves of four hosts under four spines.
"$CLOUDSM" topo gen xgft "2;4,4;1,4" -o "$WORK/f.topo" || fail "gen"
"$CLOUDSM" route -R ftree "$WORK/f.topo" -o "$WORK/ftree.lfts" || fail "ftree"
"$CLOUDSM" route -R wftree "$WORK/f.topo" -o "$WORK/none.lfts" || fail "wftree, no weights"
check "wftree without weights is valid" "$CLOUDSM" lft check "$WORK/f.topo" "$WORK/none.lfts"

# The port GUIDs of hosts 0..15 in the topology, each weighing 1: the same as no file.
port_guid() { sed -nE "/# \"$1\"\$/{n;s/^\[1\]\(([0-9a-f]+)\).*/0x\1/p}" "$WORK/f.topo"; }
for h in $(seq 0 15); do echo "$(port_guid "host-$h") 1"; done >"$WORK/ones.weights"
expect_eq "sixteen weights" 16 "$(grep -c '^0x' "$WORK/ones.weights")"
"$CLOUDSM" route -R wftree --weights "$WORK/ones.weights" "$WORK/f.topo" \
  -o "$WORK/ones.lfts" || fail "wftree, all weights 1"
check "every weight 1 is no weights file" cmp -s "$WORK/none.lfts" "$WORK/ones.lfts"

# e, i, m (host-4, host-8, host-12: the first host of leaves 2, 3, 4) weigh 100.
{
  echo "# hot spots"
  echo "$(port_guid host-4) 100"
  echo "$(port_guid host-8) 100 # storage"
  echo "$(port_guid host-12) 100"
} >"$WORK/hot.weights"
"$CLOUDSM" route -R wftree --weights "$WORK/hot.weights" "$WORK/f.topo" -o "$WORK/hot.lfts" \
  --json >"$WORK/hot.json" || fail "wftree, hot spots"
check "the JSON names wftree" grep -q '"engine": *"wftree"' "$WORK/hot.json"
check "and the tables are valid" "$CLOUDSM" lft check "$WORK/f.topo" "$WORK/hot.lfts"
# Leaf 1's (sw-L1-0's) up ports toward e, i and m.
up_ports() {
  sed -n "/('sw-L1-0')/,/^Unicast/p" "$1" |
    grep -E "'host-(4|8|12)'$" | awk '{print $2}' | sort -u | wc -l
}
expect_eq "ftree: e, i, m behind one up link of leaf 1" 1 "$(up_ports "$WORK/ftree.lfts")"
expect_eq "wftree: three up links" 3 "$(up_ports "$WORK/hot.lfts")"

# Bad files: a weight of 0 on line 2, and a line without a weight.
printf '0x10 5\n0x11 0\n' >"$WORK/zero.weights"
"$CLOUDSM" route -R wftree --weights "$WORK/zero.weights" "$WORK/f.topo" -o "$WORK/bad.lfts" \
  2>"$WORK/bad.err"
expect_eq "a bad weights file: exit 1" 1 $?
check "with file:line" grep -q "zero.weights:2:" "$WORK/bad.err"
check "and writes nothing" test ! -e "$WORK/bad.lfts"
printf '# ok\n0x10 5\n\n0x12\n' >"$WORK/short.weights"
"$CLOUDSM" route -R wftree --weights "$WORK/short.weights" "$WORK/f.topo" -o "$WORK/bad.lfts" \
  2>"$WORK/short.err"
expect_eq "a line without a weight: exit 1" 1 $?
check "with file:line" grep -q "short.weights:4:" "$WORK/short.err"
check "and writes nothing" test ! -e "$WORK/bad.lfts"

finish
