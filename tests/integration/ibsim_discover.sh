#!/usr/bin/env bash
# Our topology files against the real thing: ibsim loads what `cloudsm topo gen` writes (a PGFT
# with parallel links and missing hosts), and ibnetdiscover run against it finds exactly our
# nodes, node/port GUIDs and links. Then the other direction: for ibsim's own example net
# files (no GUIDs given), our reader's sequential GUID rule must give the GUIDs ibsim gives.
source "$(dirname "$0")/../lib/common.sh"
require_oracles ibsim ibnetdiscover smpquery

# PGFT(3; 4,4,4; 1,2,2; 1,2,2) with 3 of 4 hosts per leaf: 48 hosts, 16 leaves, 8 middle
# switches, 4 roots; every switch-to-switch pair is joined by 2 parallel links.
"$CLOUDSM" topo gen pgft "3;4,4,4;1,2,2;1,2,2" --hosts-per-leaf 3 -o "$WORK/pgft.topo" ||
  fail "topo gen"
"$CLOUDSM" topo info --json "$WORK/pgft.topo" >"$WORK/planned.json"
expect_eq "planned hosts" 48 "$(json_get "$WORK/planned.json" cas)"
expect_eq "planned switches" 28 "$(json_get "$WORK/planned.json" switches)"
# 48 host links + 16 leaves * 2 parents * 2 + 8 middles * 2 parents * 2 = 48 + 64 + 32.
expect_eq "planned links" 144 "$(json_get "$WORK/planned.json" links)"

start_ibsim "$WORK/pgft.topo"
sim ibnetdiscover >"$WORK/found.topo" 2>"$WORK/ibnetdiscover.err" || fail "ibnetdiscover"
"$CLOUDSM" topo diff "$WORK/pgft.topo" "$WORK/found.topo" >"$WORK/diff.txt"
expect_eq "ibnetdiscover finds exactly the generated fabric (topo diff exit status)" 0 $?
cat "$WORK/diff.txt"
"$CLOUDSM" topo info --json "$WORK/found.topo" >"$WORK/found.json"
for key in switches cas links switch_links levels; do
  expect_eq "discovered $key" "$(json_get "$WORK/planned.json" $key)" "$(json_get "$WORK/found.json" $key)"
done
# Independent of our reader: the GUID lines ibnetdiscover printed are the ones we wrote.
grep -E '^(switchguid|caguid)=' "$WORK/pgft.topo" | sed 's/(.*//' | sort >"$WORK/guids.planned"
grep -E '^(switchguid|caguid)=' "$WORK/found.topo" | sed 's/(.*//' | sort >"$WORK/guids.found"
sed -i -E 's/=0x0*/=0x/' "$WORK/guids.planned" "$WORK/guids.found"
check "node GUID lines identical" cmp -s "$WORK/guids.planned" "$WORK/guids.found"
grep -oE '^\[[0-9]+\]\([0-9a-f]+\)' "$WORK/pgft.topo" | sort >"$WORK/pguids.planned"
grep -oE '^\[[0-9]+\]\([0-9a-f]+\)' "$WORK/found.topo" | sort >"$WORK/pguids.found"
expect_eq "CA port GUIDs listed" 48 "$(wc -l <"$WORK/pguids.found")"
check "CA port GUIDs identical" cmp -s "$WORK/pguids.planned" "$WORK/pguids.found"
stop_ibsim

# ibsim's example fabrics name nodes without GUIDs; ibsim numbers them sequentially.
for example in net net.2sw2path4hca2port; do
  src=/usr/share/doc/ibsim-utils/net-examples/$example
  [[ -f $src ]] || { fail "missing $src"; continue; }
  start_ibsim "$src"
  sim ibnetdiscover >"$WORK/$example.found" 2>/dev/null || fail "ibnetdiscover on $example"
  "$CLOUDSM" topo diff "$src" "$WORK/$example.found" >"$WORK/$example.diff"
  expect_eq "$example: our sequential GUID rule matches ibsim's" 0 $?
  cat "$WORK/$example.diff"
  stop_ibsim
done
finish
