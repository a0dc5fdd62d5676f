#!/usr/bin/env bash
# bench/migration_sa briefly (docs/sa-path-cache.md): Paper I's migration experiment on ibsim with
# cloudsmd, 3 peers (`cloudsm pathcache` on their own VFs) keeping a connection to a VM that
# migrates once across the roots, in the three cases on fresh fabrics: (a) its addresses change
# (destroy, create with a new vGUID, the peers told the new GID by SIGHUP), (b) kept (`vm
# migrate`), (c) kept with subnet_supports_sa_path_caching. The bench checks every peer and phase
# itself and exits 1 if a check fails; here its exit status, its table, and the outcome read back
# from its --json: one PathRecord query per peer before the detach (the peers' counts and the
# SM's log agree), none after it in (c), at least one in (a) and (b), every peer reconnected, the
# SM's sa_requests equal to the MADs the peers sent.
source "$(dirname "$0")/../lib/common.sh"
require_oracles ibsim jq
bench=$(dirname "$0")/../../bench/migration_sa

"$bench" --quick --peers 3 --json "$WORK/result.json" >"$WORK/out.txt" 2>"$WORK/err.txt"
expect_eq "bench/migration_sa --quick: exit status" 0 $?
check "every check of the bench held" grep -qE "^checks: [0-9]+ passed, 0 failed" "$WORK/out.txt"
[[ -s $WORK/err.txt ]] && cat "$WORK/err.txt" >&2
for row in "(a) addresses change" "Paper I, Case 1" "(b) addresses kept, cache off" \
  "Paper I, Case 2" "(c) addresses kept, cache on" "Paper I, Case 3" "against case (a), the anchor"; do
  check "the table has '$row'" grep -qF "$row" "$WORK/out.txt"
done

r=$WORK/result.json
q() { jq -r "$@" "$r"; }
expect_eq "one run of each case" "a b c" "$(q '[.runs[].case] | join(" ")')"
expect_eq "three peers in every run" "3 3 3" "$(q '[.runs[] | .peers | length] | join(" ")')"
expect_eq "one PathRecord query per peer before the detach, in every case" 9 \
  "$(q '[.runs[].peers[] | select(.before.queries == 1 and .before.sm == 1)] | length')"
expect_eq "(c): no PathRecord query after the detach, peers' counts" 0 \
  "$(q '[.runs[] | select(.case == "c") | .peers[].after.queries] | add')"
expect_eq "(c): none in the SM's log" 0 "$(q '[.runs[] | select(.case == "c") | .peers[].after.sm] | add')"
expect_eq "(c): every peer reconnected through a cache hit" 3 \
  "$(q '[.runs[] | select(.case == "c") | .peers[] | select(.after.hits >= 1)] | length')"
for c in a b; do
  expect_eq "($c): at least one PathRecord query per peer after the detach, on both sides" 3 \
    "$(q --arg c $c '[.runs[] | select(.case == $c) | .peers[] | select(.after.queries >= 1 and .after.sm >= 1)] | length')"
  expect_eq "($c): the cache never turned on (no flag)" 0 \
    "$(q --arg c $c '[.runs[] | select(.case == $c) | .peers[] | select(.cache_enabled)] | length')"
done
expect_eq "every peer reconnected after the VM was back (a time for each)" 9 \
  "$(q '[.runs[].peers[] | select(.reconnect_back_s | length == 1 and .[0] >= 0)] | length')"
expect_eq "the SM's sa_requests = the MADs the peers sent, in every run" "true true true" \
  "$(q '[.runs[] | .sm.sa_requests == ([.peers[].after.sent] | add)] | map(tostring) | join(" ")')"
expect_eq "the summary: (c) sends no query after the detach" 0 "$(q .summary.c.after)"
check "the summary: (a) sends some ($(q .summary.a.after))" test "$(q '.summary.a.after >= 1')" == true

"$bench" --peers 9 >"$WORK/bad.txt" 2>&1
expect_eq "--peers 9: refused (ibsim's clients)" 2 $?
check "--peers 9: says why" grep -q "ibsim serves about 10 clients" "$WORK/bad.txt"
finish
