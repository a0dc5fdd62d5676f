#!/usr/bin/env bash
# cloudsm route -R pftree (docs/routing/pftree.md): pFTree (FGCS 2017) Fig. 5/6 on a generated
# tree. A phy partition routes, the tables pass lft check, --json has each partition's SL and
# the violations; a strict policy that cannot be met fails naming the partition and writes
# nothing; best-effort warns and routes; without partitions pftree is ftree.
source "$(dirname "$0")/../lib/common.sh"

# Fig. 5: three leaves of three hosts (A..I = host-0..host-8), two roots.
"$CLOUDSM" topo gen xgft "2;3,3;1,2" -o "$WORK/fig5.topo" || fail "gen"
port_guid() { sed -nE "/# \"$1\"\$/{n;s/^\[1\]\(([0-9a-f]+)\).*/0x\1/p}" "$WORK/fig5.topo"; }
members() { local h out=""; for h in "$@"; do out+="${out:+, }$(port_guid "host-$h")=full"; done; echo "$out"; }
conf() { # conf P1_FLAGS P2_FLAGS GLOBAL
  echo "P1=0x0001$1$3 : $(members 0 4) ;"
  echo "P2=0x0002$2 : $(members 1 5 6 8) ;"
  echo "P3=0x0003 : $(members 2 3 7) ;"
}
conf ", isolation=phy" "" ", isolation_policy=strict" >"$WORK/phy.conf"
conf ", isolation=phy" ", isolation=phy" ", isolation_policy=strict" >"$WORK/strict.conf"
conf ", isolation=phy" ", isolation=phy" "" >"$WORK/besteffort.conf"

"$CLOUDSM" route -R pftree "$WORK/fig5.topo" --partitions "$WORK/phy.conf" \
  -o "$WORK/phy.lfts" --json >"$WORK/phy.json" || fail "pftree, P1 phy"
check "the tables are valid" "$CLOUDSM" lft check "$WORK/fig5.topo" "$WORK/phy.lfts"
expect_eq "engine" pftree "$(json_get "$WORK/phy.json" engine)"
expect_eq "no violation" 0 "$(json_get "$WORK/phy.json" violations)"
sl_of() { grep -A4 "\"name\": \"$2\"" "$1" | sed -nE 's/.*"sl": ([0-9]+).*/\1/p'; }
expect_eq "P1 (phy) shares nothing: SL 0" 0 "$(sl_of "$WORK/phy.json" P1)"
sl2=$(sl_of "$WORK/phy.json" P2) sl3=$(sl_of "$WORK/phy.json" P3)
check "P2 and P3 share R2's links on SLs of their own" test -n "$sl2" -a -n "$sl3" -a "$sl2" != 0 \
  -a "$sl3" != 0 -a "$sl2" != "$sl3"
check "the isolation is reported" grep -q '"isolation": "phy"' "$WORK/phy.json"

"$CLOUDSM" route -R pftree "$WORK/fig5.topo" --partitions "$WORK/strict.conf" \
  -o "$WORK/strict.lfts" 2>"$WORK/strict.err"
expect_eq "strict, two phy partitions on two roots: exit 1" 1 $?
check "names the partition and the link" grep -qE \
  "partition 'P[12]' \(0x000[12], isolation=phy\) shares the link from switch 0x[0-9a-f]+ port [0-9]+" \
  "$WORK/strict.err"
check "and writes nothing" test ! -e "$WORK/strict.lfts"

"$CLOUDSM" route -R pftree "$WORK/fig5.topo" --partitions "$WORK/besteffort.conf" \
  -o "$WORK/be.lfts" --json >"$WORK/be.json" 2>"$WORK/be.err" || fail "best-effort"
check "best-effort warns" grep -q "warning: pftree: partition 'P[12]'.*best-effort" "$WORK/be.err"
check "and counts" test "$(json_get "$WORK/be.json" violations)" -gt 0
check "its tables are valid" "$CLOUDSM" lft check "$WORK/fig5.topo" "$WORK/be.lfts"

"$CLOUDSM" route -R ftree "$WORK/fig5.topo" -o "$WORK/ftree.lfts" || fail "ftree"
"$CLOUDSM" route -R pftree "$WORK/fig5.topo" -o "$WORK/none.lfts" || fail "pftree, no partitions"
check "without partitions pftree is ftree" cmp -s "$WORK/ftree.lfts" "$WORK/none.lfts"

finish
