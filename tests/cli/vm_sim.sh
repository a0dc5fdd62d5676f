#!/usr/bin/env bash
# cloudsm vm sim (docs/vswitch.md, the migration simulator): one simulation's JSON, CSV and
# determinism across thread counts; the bandwidth trends of Fig. 8 on three topologies; Paper V's
# 126 simulations without the bisect evaluations:
# FTreeMinRC updates fewer switches than ItRC per migration on every Table 4 topology, on average
# and at worst (Fig. 8(a), thesis lines 6827-6830); the Fig. 8 plots; errors.
source "$(dirname "$0")/../lib/common.sh"

sim() { "$CLOUDSM" vm sim "$@"; }
sim --xgft "2;4,8;1,4" --pattern consolidate --runs 200 --json --csv "$WORK/one.csv" \
  >"$WORK/one.json" || fail "one simulation"
one() { jq -r ".simulations[0].$1" "$WORK/one.json"; }
expect_eq "hypervisors of XGFT(2;4,8;1,4)" 32 "$(one hypervisors)"
expect_eq "VMs: 50% of 32 x 4 VFs" 64 "$(one vms)"
check "consolidation moved VMs" test "$(one moves)" -gt 0
check "FTreeMinRC updates fewer switches than ItRC" \
  awk -v m="$(one ftreeminrc.switches_mean)" -v i="$(one itrc.switches_mean)" 'BEGIN { exit !(m < i) }'
expect_eq "snapshots: the start and 10 more" 11 "$(jq '.simulations[0].snapshots | length' "$WORK/one.json")"
expect_eq "at the start both tables are vftree's: the same bandwidth" true \
  "$(jq '.simulations[0].snapshots[0] | .ebb_minrc == .ebb_vftree' "$WORK/one.json")"
expect_eq "the last snapshot is after every move" "$(one moves)" \
  "$(jq '.simulations[0].snapshots[10].moves_done' "$WORK/one.json")"
expect_eq "CSV: a header and 11 snapshots" 12 "$(wc -l <"$WORK/one.csv")"

# The same seed gives the same numbers with 1 and 2 threads (timings aside).
strip() { jq 'del(.simulations[].route_ms, .simulations[].plan_ms, .simulations[].evaluate_ms)' "$1"; }
sim --xgft "3;4,4,8;1,4,4" --distribution uniform --pattern random --runs 300 --threads 1 \
  --json >"$WORK/t1.json" || fail "threads 1"
sim --xgft "3;4,4,8;1,4,4" --distribution uniform --pattern random --runs 300 --threads 2 \
  --json >"$WORK/t2.json" || fail "threads 2"
check "threads 1 and 2: the same results" cmp -s <(strip "$WORK/t1.json") <(strip "$WORK/t2.json")
sim --xgft "3;4,4,8;1,4,4" --distribution uniform --pattern random --runs 300 --seed 2 \
  --json >"$WORK/s2.json" || fail "seed 2"
strip "$WORK/t1.json" >"$WORK/t1.stripped"
strip "$WORK/s2.json" >"$WORK/s2.stripped"
check "another seed, other results" test "$(cksum <"$WORK/t1.stripped")" != "$(cksum <"$WORK/s2.stripped")"

# The bandwidth trends of Fig. 8 at 25% (the population of its grouping and uniform<->random
# panels, (b)-(d)), 1000 bisect runs: after consolidation or grouping, FTreeMinRC's tables stay
# within a few percent of vftree's re-routing (thesis lines 6855-6865); uniform<->random falls
# further behind (lines 6839-6847), on each topology more than grouping does.
gap() { # topology distribution pattern -> the last snapshot's FTreeMinRC / vftree - 1, in %
  sim --xgft "$1" --distribution "$2" --population 25 --pattern "$3" --runs 1000 --snapshots 1 \
    --json | jq '.simulations[0].snapshots[-1] | (.ebb_minrc / .ebb_vftree - 1) * 100'
}
for xgft in "3;4,4,8;1,4,4" "3;8,8,8;1,8,8" "2;16,16;1,16"; do
  grouping_worst=0
  for start in random uniform; do
    for pattern in consolidate grouping; do
      g=$(gap "$xgft" $start $pattern)
      check "XGFT($xgft) $start -> $pattern: FTreeMinRC within 6% of vftree ($g%)" \
        awk -v g="$g" 'BEGIN { exit !(g > -6 && g < 1) }'
      [ $pattern = grouping ] && grouping_worst=$(awk -v g="$g" -v w="$grouping_worst" \
        'BEGIN { print (g < w ? g : w) }')
    done
  done
  for spread in "uniform random" "random to-uniform"; do
    g=$(gap "$xgft" $spread)
    check "XGFT($xgft) ${spread/ / -> }: further behind than grouping ($g% < $grouping_worst%)" \
      awk -v g="$g" -v w="$grouping_worst" 'BEGIN { exit !(g < w) }'
  done
done

# Paper V's 126 simulations, planning only (--runs 0), with the Fig. 8 plots (the directory is
# made).
sim --paper --runs 0 --json --plot "$WORK/fig8" >"$WORK/paper.json" 2>"$WORK/paper.err" ||
  fail "--paper"
expect_eq "126 simulations" 126 "$(jq '.simulations | length' "$WORK/paper.json")"
jq -r '.simulations | group_by(.xgft)[] | [.[0].xgft, (map(.itrc.switches_mean) | add / length),
       (map(.ftreeminrc.switches_mean) | add / length), (map(.itrc.switches_max) | max),
       (map(.ftreeminrc.switches_max) | max)] | @tsv' "$WORK/paper.json" >"$WORK/fig8a.tsv"
expect_eq "six topologies" 6 "$(wc -l <"$WORK/fig8a.tsv")"
while IFS=$'\t' read -r xgft itrc_mean minrc_mean itrc_max minrc_max; do
  check "XGFT($xgft): FTreeMinRC mean $minrc_mean < ItRC mean $itrc_mean" \
    awk -v m="$minrc_mean" -v i="$itrc_mean" 'BEGIN { exit !(m < i) }'
  check "XGFT($xgft): FTreeMinRC max $minrc_max <= ItRC max $itrc_max" test "$minrc_max" -le "$itrc_max"
done <"$WORK/fig8a.tsv"
expect_eq "to-uniform only from a random start" 0 \
  "$(jq '[.simulations[] | select(.distribution == "uniform" and .pattern == "to-uniform")] | length' "$WORK/paper.json")"
for panel in a b c d e f g h; do
  check "fig8$panel.svg written" grep -q "</svg>" "$WORK/fig8/fig8$panel.svg"
done
check "progress on standard error" grep -q "vm sim: 126/126" "$WORK/paper.err"

# Errors: usage (2) and a bad topology (1) that writes nothing.
sim --runs 10 2>"$WORK/e1"; expect_eq "neither --xgft nor --paper" 2 $?
check "says what it wants" grep -q "wants --xgft SPEC or --paper" "$WORK/e1"
sim --xgft "2;4,8;1,4" --pattern sideways 2>/dev/null; expect_eq "unknown pattern" 2 $?
sim --xgft "2;4,8;1,4" --plot "$WORK/x" 2>/dev/null; expect_eq "--plot without --paper" 2 $?
sim --xgft "2;4,x;1,4" --csv "$WORK/bad.csv" 2>"$WORK/e2"; expect_eq "a bad XGFT" 1 $?
check "names the spec" grep -q "cloudsm vm sim: " "$WORK/e2"
check "nothing written" test ! -e "$WORK/bad.csv"
# Outputs that cannot be written are refused before any work.
SECONDS=0
sim --paper --csv "$WORK/no/such/dir/f.csv" 2>"$WORK/e3"; expect_eq "--csv in a missing directory" 1 $?
check "names it" grep -q "f.csv: cannot write in $WORK/no/such/dir" "$WORK/e3"
sim --paper --plot "$WORK/no/such" 2>"$WORK/e4"; expect_eq "--plot below a missing directory" 1 $?
check "names it" grep -q "no/such: cannot create the directory" "$WORK/e4"
check "both before simulating" test "$SECONDS" -lt 5
finish
