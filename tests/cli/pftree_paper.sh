#!/usr/bin/env bash
# bench/pftree_paper on 2 draws (docs/routing/pftree.md): the pFTree paper's Table 4 and Figs.
# 13-15 through `cloudsm route -R pftree` and `cloudsm analyze`. The items the paper states
# exactly hold (--check: pFTree-Ext gather = victims - 1, victim delays unchanged by noise,
# pFTree-Wt without downward contention), and the trends: pFTree with the victims anywhere is
# delayed far more than pFTree-Ext and more so as oversubscription grows; pFTree-Wt's upward
# contention is below pFTree's.
source "$(dirname "$0")/../lib/common.sh"
bench=$(dirname "$0")/../../bench/pftree_paper

CLOUDSM=$CLOUDSM "$bench" --draws 2 --runs 20 --markdown "$WORK/tables.md" --check \
  >"$WORK/out.txt" 2>"$WORK/err.txt"
expect_eq "bench/pftree_paper --check exit status" 0 $?
check "every exact item holds" grep -q "^checks: all hold" "$WORK/out.txt"

# Table 4 rows: | hosts | victims | oversub | pattern | Ext | paper | pFTree | paper | anywhere | Ext null |
cell() { awk -F' [|] ' -v h="$1" -v p="$2" -v c="$3" '$1 == "| " h && $4 == p { sub(/ [|]$/, "", $c); print $c }' "$WORK/tables.md"; }
for hv in 128:31 192:47 256:63; do
  hosts=${hv%:*} v=${hv#*:}
  expect_eq "pFTree-Ext gather on $hosts hosts" "$v/$v/$v" "$(cell "$hosts" gather 5)"
  expect_eq "pFTree-Ext gather, no noise" "$v/$v/$v" "$(cell "$hosts" gather 10)"
done
avg() { cut -d/ -f2 <<<"$1"; }
prev=0
for hosts in 128 192 256; do
  ext=$(avg "$(cell "$hosts" bisect 5)") anywhere=$(avg "$(cell "$hosts" bisect 9)")
  check "bisect on $hosts hosts: victims anywhere ($anywhere) >= 10x pFTree-Ext ($ext)" \
    awk -v a="$anywhere" -v e="$ext" 'BEGIN { exit !(a >= 10 * e) }'
  check "and growing with oversubscription ($prev -> $anywhere)" \
    awk -v a="$anywhere" -v p="$prev" 'BEGIN { exit !(a > p) }'
  prev=$anywhere
done

# Figs. 13-15 rows: | hosts | oversub | routing | down | up | links down | links up | interference |
rows=$(grep -c '| pFTree-Wt |' "$WORK/tables.md")
expect_eq "pFTree-Wt rows (Table 3 topologies)" 9 "$rows"
expect_eq "pFTree-Wt rows with downward contention" 0 \
  "$(grep '| pFTree-Wt |' "$WORK/tables.md" | awk -F' [|] ' '$4 != "0.0(0-0)"' | wc -l)"
awk -F' [|] ' '$3 == "pFTree" { up[$1] = $5 + 0 } $3 == "pFTree-Wt" { wt[$1] = $5 + 0 }
  END { for (h in up) if (!(up[h] > wt[h])) print h, up[h], wt[h] }' "$WORK/tables.md" >"$WORK/up.txt"
check "pFTree's upward contention above pFTree-Wt's on every topology" test ! -s "$WORK/up.txt"
finish
