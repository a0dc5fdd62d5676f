#!/usr/bin/env bash
# cloudsm route --subtree/--previous (fast hybrid re-routing, docs/routing/hybrid.md), on the
# hybrid paper's testbed: ftree shares a link between CN5 -> CN1 and CN7 -> CN3 (each flow 1/2);
# re-routing only the lower-left sub-tree with noftree, CN1 and CN3 first, separates them (1.0
# each); only that sub-tree's switches change, the whole fabric stays routed, and bad input is
# refused with a reason (file:line for a file).
source "$(dirname "$0")/../lib/common.sh"

"$CLOUDSM" topo gen preset hybrid-testbed --lids -o "$WORK/tb.topo" || fail "gen"
"$CLOUDSM" route -R ftree "$WORK/tb.topo" -o "$WORK/ftree.lfts" >/dev/null || fail "ftree"

guid_of() { sed -nE "/# \"$1\"\$/{n;s/^\[1\]\(([0-9a-f]+)\).*/0x\1/p}" "$WORK/tb.topo"; }
{ guid_of CN1; guid_of CN3; } >"$WORK/order"
expect_eq "two GUIDs in the order" 2 "$(grep -c '^0x' "$WORK/order")"
# The two flows as a bisect pattern: ranks CN5, CN1, CN7, CN3 -> CN5 -> CN1, CN7 -> CN3.
{ guid_of CN5; guid_of CN1; guid_of CN7; guid_of CN3; } >"$WORK/flows"
bandwidth() {
  "$CLOUDSM" analyze "$WORK/tb.topo" "$1" --pattern bisect --select linear --order "$WORK/flows" \
    --commsize 4 --json | jq -r '.effective_bandwidth.mean'
}
expect_eq "ftree: CN5->CN1 and CN7->CN3 share a link (1/2 each)" 0.5 "$(bandwidth "$WORK/ftree.lfts")"

"$CLOUDSM" route -R noftree "$WORK/tb.topo" --previous "$WORK/ftree.lfts" --subtree CN1,CN3 \
  --order "$WORK/order" -o "$WORK/hybrid.lfts" >"$WORK/hybrid.out" || fail "sub-tree noftree"
check "it reports the sub-tree" grep -q "sub-tree: 4 switches (2 of 3 levels), 2 leaves, 8 nodes" \
  "$WORK/hybrid.out"
expect_eq "after the sub-tree re-route: 1.0 each" 1 "$(bandwidth "$WORK/hybrid.lfts")"
check "the whole fabric stays routed (lft check)" \
  "$CLOUDSM" lft check "$WORK/tb.topo" "$WORK/hybrid.lfts"
"$CLOUDSM" lft diff "$WORK/ftree.lfts" "$WORK/hybrid.lfts" --per-switch --json >"$WORK/diff.json"
changed=$(jq -r '[.per_switch[] | select(.entries_changed > 0) | .desc] | sort | join(",")' \
  "$WORK/diff.json")
# S2 is the only switch with a choice to change: its routes up to CN2 and CN3 (S1, S5 and S6
# reach CN1..CN4 directly either way).
expect_eq "only switches of the sub-tree changed" "S2" "$changed"

# The same by GUIDs from a file, with --json.
guid_of CN1 >"$WORK/nodes"
"$CLOUDSM" route -R noftree "$WORK/tb.topo" --previous "$WORK/ftree.lfts" \
  --subtree "@$WORK/nodes" --order "$WORK/order" --json -o "$WORK/hybrid2.lfts" >"$WORK/h2.json" ||
  fail "sub-tree from a GUID file"
expect_eq "--json scope_switches" 4 "$(jq -r .scope_switches "$WORK/h2.json")"
check "same tables from GUIDs" cmp -s "$WORK/hybrid.lfts" "$WORK/hybrid2.lfts"

# Nodes of both pods: the whole tree, routed as ftree routes it.
"$CLOUDSM" route -R ftree "$WORK/tb.topo" --previous "$WORK/hybrid.lfts" --subtree CN1,CN14 \
  -o "$WORK/whole.lfts" >/dev/null || fail "whole-tree sub-tree"
check "a whole-tree sub-tree is ftree" cmp -s "$WORK/ftree.lfts" "$WORK/whole.lfts"

# Refusals.
refused() { # NAME PATTERN ARGS...: the command fails, says PATTERN and writes nothing
  local name=$1 pattern=$2
  shift 2
  rm -f "$WORK/out.lfts"
  "$CLOUDSM" route "$@" -o "$WORK/out.lfts" >/dev/null 2>"$WORK/err"
  check "$name fails" test $? -ne 0
  check "$name says why" grep -q -- "$pattern" "$WORK/err"
  check "$name writes nothing" test ! -e "$WORK/out.lfts"
}
refused "no --previous" "give --previous FILE" -R ftree "$WORK/tb.topo" --subtree CN1
refused "minhop" "minhop cannot re-route a sub-tree" -R minhop "$WORK/tb.topo" \
  --previous "$WORK/ftree.lfts" --subtree CN1
refused "a switch" "'S5' is a switch" -R ftree "$WORK/tb.topo" --previous "$WORK/ftree.lfts" \
  --subtree S5
refused "an unknown name" "'CN99' is neither a GUID nor the name of a CA" -R ftree \
  "$WORK/tb.topo" --previous "$WORK/ftree.lfts" --subtree CN99
refused "an unknown GUID" "no node or port has GUID 0x0000000000001234" -R ftree \
  "$WORK/tb.topo" --previous "$WORK/ftree.lfts" --subtree 0x1234
printf 'Unicast lids [0-3] of switch Lid 1 guid 0x0000000000000001 (x):\n0x0001 000 # x\nbroken\n' \
  >"$WORK/bad.lfts"
refused "a bad previous file" "bad.lfts:3:" -R ftree "$WORK/tb.topo" --previous "$WORK/bad.lfts" \
  --subtree CN1
# Tables of another fabric (a 2-level tree's) do not cover this one's switches.
"$CLOUDSM" topo gen kary 2 2 --lids -o "$WORK/other.topo" || fail "gen other"
"$CLOUDSM" route -R ftree "$WORK/other.topo" -o "$WORK/other.lfts" >/dev/null || fail "route other"
refused "another fabric's tables" "not this fabric's" -R ftree "$WORK/tb.topo" \
  --previous "$WORK/other.lfts" --subtree CN1

finish
