#!/usr/bin/env bash
# cloudsm delay end to end: eval on hand-made CSV traces (the paper's Case 2), JSON keys, the
# experiment tables' columns, CSV and plots written, thread independence, usage and input errors.
source "$(dirname "$0")/../lib/common.sh"

# Case 2 (spec workload-delay.md 1.4, seed 7175-7179): one VM, 150% in minute 1 then 100%, on
# one core: 0.5 minute of delay in each of the 10 minutes.
{
  echo "vm,vcores,t,cpu_pct"
  echo "a,2,0,150"
  for t in 1 2 3 4 5 6 7 8 9; do echo "a,2,$t,100"; done
} >"$WORK/case2.csv"
"$CLOUDSM" delay eval "$WORK/case2.csv" --cores 1 --json >"$WORK/case2.json" || fail "eval"
for key in total_delay max_delay delayed_fraction filling; do
  check "JSON has $key" grep -q "\"$key\"" "$WORK/case2.json"
done
expect_eq "Case 2 total delay 0.5*T" 5 "$(json_get "$WORK/case2.json" total_delay)"
expect_eq "Case 2 max delay" 0.5 "$(json_get "$WORK/case2.json" max_delay)"
expect_eq "Case 2 delayed fraction" 1 "$(json_get "$WORK/case2.json" delayed_fraction)"
expect_eq "Case 2 filling from demand" 1.05 "$(json_get "$WORK/case2.json" filling)"
"$CLOUDSM" delay eval "$WORK/case2.csv" --cores 2 --json >"$WORK/c2.json" || fail "eval 2 cores"
expect_eq "two cores: no delay" 0 "$(json_get "$WORK/c2.json" total_delay)"
"$CLOUDSM" delay eval "$WORK/case2.csv" --cores 1 --series "$WORK/series.csv" >/dev/null \
  || fail "series"
expect_eq "series: a line per step (+ header)" 11 "$(wc -l <"$WORK/series.csv")"
check "series: served 100 while queued" grep -q "^0,150,100,50,0.5$" "$WORK/series.csv"

# Experiments on the synthetic trace: Table I / II columns exactly.
"$CLOUDSM" delay experiment synthetic --mode whole --cores 12,32 --thresholds 70,100 \
  --csv "$WORK/bins.csv" --plot "$WORK/fig4" >"$WORK/t1.txt" || fail "util experiment"
check "Table I columns" grep -qF "| Bin filling threshold (pct) | Avg total delay per bin (mins) | Med total delay per bin (mins) | Max total bin delay in bins (mins) | Avg bin filling (pct) | Med bin filling (pct) | Max bin filling (pct) | Avg workload delayed in bins (pct) | Avg delay experienced by workload when delay > 0 (mins) |" "$WORK/t1.txt"
check "row for 70%" grep -q "^| 70% |" "$WORK/t1.txt"
check "CSV header" grep -q "^mode,policy,fold,cores,threshold_pct" "$WORK/bins.csv"
check "plot written" grep -q "<svg" "$WORK/fig4-t70.svg"
check "plot for 100% too" test -s "$WORK/fig4-t100.svg"

for t in 1 2; do
  "$CLOUDSM" delay experiment synthetic --policy delay --mode whole --cores 16 \
    --thresholds 90 --accepted 1000 --threads $t --sla --json --csv "$WORK/d$t.csv" \
    >"$WORK/d$t.json" || fail "delay experiment ($t threads)"
done
check "delay packing: same results on 1 and 2 threads" cmp -s "$WORK/d1.csv" "$WORK/d2.csv"
check "JSON has the SLA view" grep -q '"compliance_rate": 1' "$WORK/d1.json"
"$CLOUDSM" delay experiment synthetic --policy delay --mode whole --cores 16 --thresholds 90 \
  >"$WORK/t2.txt" || fail "table II"
check "Table II columns" grep -qF "| Accepted total delay (mins) | Bin filling threshold (pct) |" "$WORK/t2.txt"
check "Table II last column" grep -qF "| Avg delay when delay > 0 (mins) |" "$WORK/t2.txt"

# Usage and input errors.
"$CLOUDSM" delay eval "$WORK/case2.csv" >/dev/null 2>&1
expect_eq "missing --cores: usage" 2 $?
"$CLOUDSM" delay experiment synthetic --policy sometimes >/dev/null 2>&1
expect_eq "bad policy: usage" 2 $?
"$CLOUDSM" delay experiment synthetic --sla >/dev/null 2>&1
expect_eq "--sla without delay policy: usage" 2 $?
printf 'vm,vcores,t,cpu_pct\na,1,zero,5\n' >"$WORK/bad.csv"
"$CLOUDSM" delay eval "$WORK/bad.csv" --cores 1 2>"$WORK/err" >/dev/null
expect_eq "bad trace: failure" 1 $?
check "names file:line" grep -q "bad.csv:2: " "$WORK/err"
"$CLOUDSM" delay eval "$WORK/case2.csv" --cores 1 --series "$WORK/nodir/s.csv" >/dev/null 2>&1
expect_eq "unwritable series: failure" 1 $?
"$CLOUDSM" delay eval --help | grep -q "examples:" || fail "help"
finish
