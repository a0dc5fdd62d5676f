#!/usr/bin/env bash
# cloudsm analyze end to end: JSON keys, determinism across thread counts, outputs written
# atomically, partitions, usage and input errors.
source "$(dirname "$0")/../lib/common.sh"

"$CLOUDSM" topo gen kary 4 3 -o "$WORK/k43.topo" || fail "gen"
"$CLOUDSM" route -R ftree "$WORK/k43.topo" -o "$WORK/k43.lfts" || fail "route"

# Shift on ftree's full-bisection tree in fabric order: every flow unshared.
"$CLOUDSM" analyze "$WORK/k43.topo" "$WORK/k43.lfts" --pattern shift --select linear --json \
  >"$WORK/shift.json" || fail "analyze shift"
for key in pattern runs effective_bandwidth max_congestion sum_max_congestion dep_max_delay \
           weight_histogram; do
  check "JSON has $key" grep -q "\"$key\"" "$WORK/shift.json"
done
check "shift: effective bandwidth 1" grep -A3 '"effective_bandwidth"' "$WORK/shift.json" \
  | grep -q '"mean": 1$'

# Same seed, same numbers with 1 and 2 threads (the JSON differs only in "threads").
for t in 1 2; do
  "$CLOUDSM" analyze "$WORK/k43.topo" "$WORK/k43.lfts" --pattern bisect --runs 300 --seed 9 \
    --threads $t --json --csv "$WORK/runs$t.csv" | grep -v '"threads"' >"$WORK/bisect$t.json"
done
check "bisect: identical results on 1 and 2 threads" cmp -s "$WORK/bisect1.json" "$WORK/bisect2.json"
check "per-run CSV identical too" cmp -s "$WORK/runs1.csv" "$WORK/runs2.csv"
expect_eq "CSV has a line per run (+ header)" 301 "$(wc -l <"$WORK/runs1.csv")"

# Plot and link export.
"$CLOUDSM" analyze "$WORK/k43.topo" "$WORK/k43.lfts" --pattern bisect --runs 50 \
  --plot "$WORK/ebb.svg" --links "$WORK/links.csv" >"$WORK/text.txt" || fail "plot"
check "SVG written" grep -q "<svg" "$WORK/ebb.svg"
check "text summary" grep -q "^effective bandwidth" "$WORK/text.txt"
# 4-ary-3-tree: 64 host cables + 128 switch cables, two directions each.
expect_eq "one CSV line per directed link (+ header)" $((2 * 192 + 1)) "$(wc -l <"$WORK/links.csv")"

# Partitions: victim on one partition, aggressor on the other.
first=$(grep -m1 '^caguid=' "$WORK/k43.topo" | sed 's/caguid=//')
{
  echo "Default=0x7fff : ALL=full ;"
  printf 'victims=0x8001 :'
  sep=' '
  for i in $(seq 0 15); do printf '%s0x%016x=full' "$sep" $((first + (i << 8) + 1)); sep=', '; done
  echo ' ;'
  printf 'others=0x8002 :'
  sep=' '
  for i in $(seq 16 63); do printf '%s0x%016x=full' "$sep" $((first + (i << 8) + 1)); sep=', '; done
  echo ' ;'
} >"$WORK/partitions.conf"
"$CLOUDSM" analyze "$WORK/k43.topo" "$WORK/k43.lfts" --partitions "$WORK/partitions.conf" \
  --partition 0x8001 --pattern alltoall --versus alltoall --aggressor-partition 0x8002 \
  --runs 3 --json >"$WORK/pvp.json" || fail "pattern versus pattern"
expect_eq "victim ranks" 16 "$(json_get "$WORK/pvp.json" ranks)"
expect_eq "aggressor ranks" 48 "$(json_get "$WORK/pvp.json" aggressor_ranks)"

# Static metrics: every pair of partition members is a flow; receivers give contention.
"$CLOUDSM" analyze "$WORK/k43.topo" "$WORK/k43.lfts" --static --partitions "$WORK/partitions.conf" \
  --json >"$WORK/static.json" || fail "static"
check "static JSON has interference" grep -q '"interference"' "$WORK/static.json"
check "static JSON lists both partitions (P_Key ids without the full bit)" grep -q '"pkey": 2,' "$WORK/static.json"
printf '0x%016x\n0x%016x\n' $((first + 1)) $((first + (1 << 8) + 1)) >"$WORK/receivers"
"$CLOUDSM" analyze "$WORK/k43.topo" "$WORK/k43.lfts" --static --receivers "$WORK/receivers" \
  --links "$WORK/static-links.csv" >"$WORK/static.txt" || fail "static with receivers"
check "contention reported" grep -q "contention" "$WORK/static.txt"
expect_eq "static per-link CSV: a line per directed link (+ header)" $((2 * 192 + 1)) \
  "$(wc -l <"$WORK/static-links.csv")"
# ORCS dot: hosts named H-<port GUID>; a host's only edge carries every destination ("*").
"$CLOUDSM" analyze "$WORK/k43.topo" "$WORK/k43.lfts" --dot "$WORK/fabric.dot" || fail "dot"
check "dot is a digraph" grep -q "^digraph" "$WORK/fabric.dot"
expect_eq "host vertices' out-edges carry '*'" 64 \
  "$(grep -cE '^ *"H-[0-9a-f]{16}" -> "S-[0-9a-f]{16}".*comment="\*"' "$WORK/fabric.dot")"

# Errors.
"$CLOUDSM" analyze "$WORK/k43.topo" "$WORK/k43.lfts" --pattern nonsense >/dev/null 2>&1
expect_eq "unknown pattern: usage error" 2 $?
"$CLOUDSM" analyze "$WORK/k43.topo" "$WORK/k43.lfts" >/dev/null 2>&1
expect_eq "no pattern: usage error" 2 $?
"$CLOUDSM" analyze "$WORK/k43.topo" "$WORK/k43.lfts" --pattern bisect --partition 0x8001 >/dev/null 2>&1
expect_eq "--partition without --partitions: usage error" 2 $?
printf 'Unicast lids [0-3] of switch Lid 1 guid 0x0000000000000001 (%s):\n0xZZ 1\n' "'s'" >"$WORK/bad.lfts"
"$CLOUDSM" analyze "$WORK/k43.topo" "$WORK/bad.lfts" --pattern bisect 2>"$WORK/err" >/dev/null
expect_eq "bad LFT file: failure" 1 $?
check "names file:line" grep -q "bad.lfts:2: " "$WORK/err"
"$CLOUDSM" analyze "$WORK/k43.topo" "$WORK/k43.lfts" --pattern bisect --plot "$WORK/nodir/x.svg" >/dev/null 2>&1
expect_eq "unwritable plot: failure" 1 $?
finish
