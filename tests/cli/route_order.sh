#!/usr/bin/env bash
# cloudsm route --order (noftree's node order): no order and an order naming nothing routed give
# ftree's tables; a real order moves nodes into new slots and the tables stay valid; a bad order
# file is refused with file:line and nothing is written.
source "$(dirname "$0")/../lib/common.sh"

# Hybrid Fig. 5/6: four leaves of four hosts under four spines.
"$CLOUDSM" topo gen xgft "2;4,4;1,4" -o "$WORK/fig5.topo" || fail "gen"
"$CLOUDSM" route -R ftree "$WORK/fig5.topo" -o "$WORK/ftree.lfts" || fail "ftree"
"$CLOUDSM" route -R noftree "$WORK/fig5.topo" -o "$WORK/none.lfts" || fail "noftree, no order"
check "noftree without --order is ftree" cmp -s "$WORK/ftree.lfts" "$WORK/none.lfts"

printf '# nobody here\n0x1234\n' >"$WORK/stranger.order"
"$CLOUDSM" route -R noftree --order "$WORK/stranger.order" "$WORK/fig5.topo" \
  -o "$WORK/stranger.lfts" 2>"$WORK/stranger.err" || fail "noftree, order of strangers"
check "an order naming no routed node is ftree" cmp -s "$WORK/ftree.lfts" "$WORK/stranger.lfts"
check "and says which entry it skipped" grep -q "warning: noftree: node order entry 1 (0x0000000000001234)" \
  "$WORK/stranger.err"

# The port GUIDs of host-4, host-8 and host-12: the first host of leaves 2, 3 and 4 (e, i, m).
port_guid() { sed -nE "/# \"$1\"\$/{n;s/^\[1\]\(([0-9a-f]+)\).*/0x\1/p}" "$WORK/fig5.topo"; }
{ echo "# e, i, m"; port_guid host-4; port_guid host-8; port_guid host-12; } >"$WORK/eim.order"
expect_eq "three GUIDs in the order" 3 "$(grep -c '^0x' "$WORK/eim.order")"
"$CLOUDSM" route -R noftree --order "$WORK/eim.order" "$WORK/fig5.topo" \
  -o "$WORK/eim.lfts" || fail "noftree, order e i m"
differ() { ! cmp -s "$1" "$2"; }
check "the order changes the tables" differ "$WORK/ftree.lfts" "$WORK/eim.lfts"
check "and they are valid" "$CLOUDSM" lft check "$WORK/fig5.topo" "$WORK/eim.lfts"

printf '0x10\nnot-a-guid\n' >"$WORK/bad.order"
"$CLOUDSM" route -R noftree --order "$WORK/bad.order" "$WORK/fig5.topo" -o "$WORK/bad.lfts" \
  2>"$WORK/bad.err"
check "a bad order file fails" test $? -ne 0
check "with file:line" grep -q "bad.order:2:" "$WORK/bad.err"
check "and writes nothing" test ! -e "$WORK/bad.lfts"
"$CLOUDSM" route -R noftree --order "$WORK/missing.order" "$WORK/fig5.topo" >/dev/null 2>&1
check "a missing order file fails" test $? -ne 0

finish
