#!/usr/bin/env bash
# cloudsm route -R mftree --metabase FILE --paths N|disjoint (docs/routing/mftree.md): the tables
# are valid; the first routing computes the metabase and writes FILE, the second loads it
# (build_kept) and writes the same tables; a node order gives other valid tables from the same
# metabase; bad --paths values are usage errors; a --metabase file that is not a metabase is
# refused with its path, exit 1, and left as it was.
source "$(dirname "$0")/../lib/common.sh"

"$CLOUDSM" topo gen kary 4 3 --lids -o "$WORK/f.topo" || fail "gen"
"$CLOUDSM" route -R mftree "$WORK/f.topo" --metabase "$WORK/f.mb" -o "$WORK/a.lfts" \
  --json >"$WORK/a.json" || fail "first routing"
expect_eq "first routing computes phase I" false "$(json_get "$WORK/a.json" build_kept)"
check "the metabase file exists" test -s "$WORK/f.mb"
check "the tables are valid" "$CLOUDSM" lft check "$WORK/f.topo" "$WORK/a.lfts"
"$CLOUDSM" route -R mftree "$WORK/f.topo" --metabase "$WORK/f.mb" -o "$WORK/b.lfts" \
  --json >"$WORK/b.json" || fail "second routing"
expect_eq "second routing loads it" true "$(json_get "$WORK/b.json" build_kept)"
check "and gives the same tables" cmp -s "$WORK/a.lfts" "$WORK/b.lfts"

# A node order: the hosts in reverse (port GUIDs from the topology file).
grep -oE '^\[1\]\([0-9a-f]+\)' "$WORK/f.topo" | sed -E 's/^\[1\]\(([0-9a-f]+)\)/0x\1/' |
  tac >"$WORK/order.guids"
expect_eq "64 hosts in the order" 64 "$(wc -l <"$WORK/order.guids")"
"$CLOUDSM" route -R mftree "$WORK/f.topo" --metabase "$WORK/f.mb" --order "$WORK/order.guids" \
  -o "$WORK/c.lfts" --json >"$WORK/c.json" || fail "ordered routing"
expect_eq "the order is phase II only" true "$(json_get "$WORK/c.json" build_kept)"
check "ordered tables are valid" "$CLOUDSM" lft check "$WORK/f.topo" "$WORK/c.lfts"
check "and differ from the unordered ones" bash -c "! cmp -s '$WORK/a.lfts' '$WORK/c.lfts'"

# --paths: another K is another metabase (rebuilt); disjoint is 4 here.
"$CLOUDSM" route -R mftree "$WORK/f.topo" --metabase "$WORK/f.mb" --paths disjoint \
  -o "$WORK/d.lfts" --json >"$WORK/d.json" 2>"$WORK/d.err" || fail "--paths disjoint"
expect_eq "another path count rebuilds" false "$(json_get "$WORK/d.json" build_kept)"
check "disjoint tables are valid" "$CLOUDSM" lft check "$WORK/f.topo" "$WORK/d.lfts"
"$CLOUDSM" route -R mftree "$WORK/f.topo" --paths 0 -o "$WORK/x.lfts" 2>"$WORK/x.err"
expect_eq "--paths 0 is a usage error" 2 "$?"
check "naming the option" grep -q -- "--paths" "$WORK/x.err"
"$CLOUDSM" route -R mftree "$WORK/f.topo" --paths many -o "$WORK/x.lfts" 2>/dev/null
expect_eq "--paths many is a usage error" 2 "$?"

# Not a metabase: refused, untouched.
cp "$WORK/f.topo" "$WORK/not.mb"
"$CLOUDSM" route -R mftree "$WORK/f.topo" --metabase "$WORK/not.mb" -o "$WORK/y.lfts" \
  2>"$WORK/y.err"
expect_eq "a file that is not a metabase fails" 1 "$?"
check "the error names the file" grep -q "$WORK/not.mb" "$WORK/y.err"
check "and the file is left as it was" cmp -s "$WORK/f.topo" "$WORK/not.mb"
check "no tables are written" test ! -e "$WORK/y.lfts"
finish
