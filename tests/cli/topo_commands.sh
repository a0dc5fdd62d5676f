#!/usr/bin/env bash
# topo gen / info / lids / diff end to end, with counts worked out by hand.
source "$(dirname "$0")/../lib/common.sh"

# 4-ary-3-tree: 64 hosts; 3 levels of 16 switches; links: 64 host links + 16*4 leaf uplinks +
# 16*4 middle uplinks = 192 (128 between switches); LIDs 48 + 64 = 112 -> 112/64 + 1 = 2 blocks.
"$CLOUDSM" topo gen kary 4 3 -o "$WORK/k4n3.topo" || fail "gen kary"
"$CLOUDSM" topo info --json "$WORK/k4n3.topo" >"$WORK/info.json" || fail "info"
for pair in switches:48 cas:64 hosts:64 links:192 switch_links:128 levels:3 leaves:16 lids:112 \
            lft_blocks_min:2 max_lid:0; do
  expect_eq "k4n3 ${pair%%:*}" "${pair#*:}" "$(json_get "$WORK/info.json" "${pair%%:*}")"
done
check "hosts_per_leaf in JSON" grep -q '"min": 4' "$WORK/info.json"

# The same tree through a pipe, in text form.
"$CLOUDSM" topo gen kary 4 3 | "$CLOUDSM" topo info /dev/stdin >"$WORK/info.txt" || fail "pipe"
check "text summary" grep -q "^switches *48 in 3 levels" "$WORK/info.txt"

# The papers' topologies (Paper V, Table 3 derivations; docs/references.md).
"$CLOUDSM" topo gen xgft "2;18,18;1,18" | "$CLOUDSM" topo info --json /dev/stdin >"$WORK/x.json"
expect_eq "XGFT(2;18,18;1,18) hosts" 324 "$(json_get "$WORK/x.json" cas)"
expect_eq "XGFT(2;18,18;1,18) switches" 36 "$(json_get "$WORK/x.json" switches)"

# --lids: LIDs 1..112 in fabric order, written into the topology; lids agrees with guid2lid.
"$CLOUDSM" topo gen kary 4 3 --lids -o "$WORK/lids.topo" || fail "gen --lids"
"$CLOUDSM" topo info --json "$WORK/lids.topo" >"$WORK/lids.json"
expect_eq "max LID after --lids" 112 "$(json_get "$WORK/lids.json" max_lid)"
"$CLOUDSM" topo lids "$WORK/k4n3.topo" -o "$WORK/guid2lid" || fail "topo lids"
expect_eq "guid2lid entries" 112 "$(grep -c '^0x' "$WORK/guid2lid")"
# guid2lid honoured: give the first host LID 500; it keeps it, nothing else moves onto it.
first_host=$(grep -m1 '^caguid=' "$WORK/k4n3.topo" | sed 's/caguid=//')
printf '0x%016x 0x01f4 0x01f4\n\n' $((first_host + 1)) >"$WORK/preload"
"$CLOUDSM" topo lids "$WORK/k4n3.topo" --guid2lid "$WORK/preload" -o "$WORK/guid2lid2" || fail "lids with preload"
check "preloaded LID kept" grep -q "0x01f4 0x01f4" "$WORK/guid2lid2"
expect_eq "LID 500 used once" 1 "$(grep -c ' 0x01f4 ' "$WORK/guid2lid2")"

# topo diff: identical files, then one recabled host.
"$CLOUDSM" topo diff "$WORK/k4n3.topo" "$WORK/lids.topo" >/dev/null
expect_eq "diff ignores LIDs by default" 0 $?
"$CLOUDSM" topo diff --lids "$WORK/k4n3.topo" "$WORK/lids.topo" >/dev/null
expect_eq "diff --lids sees them" 3 $?
finish
