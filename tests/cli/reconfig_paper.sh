#!/usr/bin/env bash
# bench/reconfig_paper (docs/reconfiguration.md) end to end. ftree against noftree (without an
# order, ftree's tables): a missing engine stops it at once; every table comes out; the two
# engines agree on every figure; --check fails, since an engine that is ftree cannot change fewer
# paths than ftree. Then the paper's trends with slimupdate (--quick): --check holds (fewer paths
# than ftree after a link failure and after node shutdowns, EBB within 3%), G's first failure
# saves most of ftree's entries, and 10 node shutdowns change none of the survivors' routes.
source "$(dirname "$0")/../lib/common.sh"
bench=$(dirname "$0")/../../bench/reconfig_paper

CLOUDSM=$CLOUDSM "$bench" --engines "ftree no-such-engine" --runs 1 >"$WORK/missing.out" 2>&1
expect_eq "a missing engine exits 1" 1 $?
check "and says which" grep -q "engine 'no-such-engine' is missing" "$WORK/missing.out"
check "before any work" bash -c "! grep -q 'done (' '$WORK/missing.out'"

CLOUDSM=$CLOUDSM "$bench" --engines "ftree noftree" --runs 2 --ebb-runs 200 --t-smp 0.065 \
  --markdown "$WORK/tables.md" --check >"$WORK/out.txt" 2>"$WORK/err.txt"
expect_eq "--check with an engine equal to ftree exits 1" 1 $?
check "(a) check failed" grep -q 'CHECK FAILED: (a): noftree changes' "$WORK/err.txt"
check "(c) check failed" grep -q 'CHECK FAILED: (c): noftree changes' "$WORK/err.txt"
check "EBB check held" bash -c "! grep -q 'CHECK FAILED: (d)' '$WORK/err.txt'"
check "nothing fell back, every pair delivered" \
  grep -q '^fallbacks: 0; pairs left undelivered by a re-routing: 0$' "$WORK/out.txt"
for section in "(a) First random link failure" "(b) k-1 cumulative link failures" \
  "(c) 10 cumulative node shutdowns" "(d) Effective bisection bandwidth" "(e) Table 3"; do
  check "section $section" grep -qF "$section" "$WORK/out.txt"
  check "section $section in Markdown" grep -qF "$section" "$WORK/tables.md"
done
check "t_smp as given" grep -q '^t_smp: 0.065 ms (given)' "$WORK/out.txt"

# Markdown rows: | topology | hosts | metric | ftree | noftree | saved | paper |: the same
# tables give the same figures, so every saving is 0.
rows=$(grep -cE '^\| [^|]* \| [^|]* \| (paths|dests|entries|SMPs) \|' "$WORK/tables.md")
check "metric rows ($rows)" test "$rows" -ge 100
expect_eq "rows where noftree differs from ftree" 0 \
  "$(grep -E '^\| [^|]* \| [^|]* \| (paths|dests|entries|SMPs) \|' "$WORK/tables.md" |
    awk -F' [|] ' '$4 != $5 || $6 != "0.0%"' | wc -l)"
# Topology B's first failure changes 3 to 9 destinations (the paper: 3 or 4 with SlimUpdate, up
# to 8 with ftree).
b=$(awk -F' [|] ' '$1 == "| 3-ary-2 (B)" { getline; print $4; exit }' "$WORK/tables.md")
check "topology B: destinations changed ($b) in 3..9" awk -v v="$b" 'BEGIN { exit !(v >= 3 && v <= 9) }'
# (e): six Table 3 topologies, each with the paper's ratio.
expect_eq "Table 3 rows" 6 "$(grep -cE '^\| (4|8|16|12)-ary-[23] \| [0-9]+ \| .* \| 1\.[0-9]{2} \|$' "$WORK/tables.md")"

CLOUDSM=$CLOUDSM "$bench" --quick --t-smp 0.065 --markdown "$WORK/slim.md" --check \
  >"$WORK/slim.out" 2>"$WORK/slim.err"
expect_eq "slimupdate against ftree: --check holds" 0 $?
saved=$(awk -F' [|] ' '$1 == "| 16-ary-2 (G)" { getline; getline; print $6; exit }' "$WORK/slim.md")
check "G, first failure: slimupdate saves >= 60% of ftree's entries ($saved)" \
  awk -v v="${saved%\%}" 'BEGIN { exit !(v >= 60) }'
shut=$(awk -F' [|] ' '$1 == "| 16-ary-2 (G), sum" { getline; getline; print $5; exit }' "$WORK/slim.md")
expect_eq "G, 10 node shutdowns: entries slimupdate changes" 0.0 "$shut"
finish
