#!/usr/bin/env bash
# minhop and updn against the real OpenSM 3.3.23 on ibsim, entry by entry on the same LIDs
# (OpenSM's guid2lid fed to `cloudsm route --guid2lid`), on fat-trees and on fabrics that are not
# trees (a ring, a torus, random graphs in tests/data). Every comparison states how many entries
# may differ: 0 wherever we reproduce OpenSM; the one known difference is in updn-turn.net, where
# OpenSM's updn routes down then up and ours does not (docs/routing/minhop-updn.md). Our tables
# must also pass `cloudsm lft check`: every CA reaches every CA, and updn has no credit loop.
source "$(dirname "$0")/../lib/common.sh"
require_oracles ibsim opensm

DATA=${CLOUDSM_TEST_DATA:?}

# compare NAME TOPO ENGINE EXPECTED_MISMATCHES [--root-guids FILE [--connect-roots]]
# Runs OpenSM and cloudsm with ENGINE on the fabric loaded in ibsim, and checks the number of
# LFT entries that differ, that both used the engine (or both fell back to minhop), and that our
# tables deliver every CA pair (with no credit loop for updn, when all pairs are reachable).
compare() {
  local name=$1 topo=$2 engine=$3 expect=$4; shift 4
  local dir=$WORK/$name-$engine osm_opts=() ours_opts=()
  while [[ $# -gt 0 ]]; do
    case $1 in
      --root-guids) osm_opts+=(-a "$2"); ours_opts+=(--root-guids "$2"); shift 2 ;;
      --connect-roots) osm_opts+=(-z); ours_opts+=(--connect-roots); shift ;;
      *) fail "compare: bad option $1"; return ;;
    esac
  done
  run_opensm "$dir" "$engine" "${osm_opts[@]}" || { fail "$name: opensm -R $engine"; return; }
  local used
  used=$(sed -n 's/.*osm_ucast_mgr_process: \([a-z]*\) tables configured on all switches.*/\1/p' \
    "$dir/osm.log" | tail -n 1)
  "$CLOUDSM" route -R "$engine" "$topo" --guid2lid "$dir/guid2lid" "${ours_opts[@]}" \
    -o "$dir/ours.dump" --json >"$dir/route.json" || { fail "$name: cloudsm route -R $engine"; return; }
  expect_eq "$name $engine: engine used, OpenSM vs ours" "$used" "$(json_get "$dir/route.json" engine)"
  # lft diff exits 3 when the tables differ (as topo diff): only 1 or 2 is a failure.
  local diff_rc=0
  "$CLOUDSM" lft diff --json "$dir/opensm-lfts.dump" "$dir/ours.dump" >"$dir/diff.json" || diff_rc=$?
  [[ $diff_rc -eq 0 || $diff_rc -eq 3 ]] || fail "$name: lft diff"
  expect_eq "$name $engine: entries differing from OpenSM" "$expect" \
    "$(json_get "$dir/diff.json" entries_changed)"
  # shellcheck disable=SC2086 # CHECK_OPTS: extra lft check options, word-split on purpose
  "$CLOUDSM" lft check "$topo" "$dir/ours.dump" --guid2lid "$dir/guid2lid" --json ${CHECK_OPTS:-} \
    >"$dir/check.json"
  # shellcheck disable=SC2086
  "$CLOUDSM" lft check "$topo" "$dir/opensm-lfts.dump" --guid2lid "$dir/guid2lid" --json \
    ${CHECK_OPTS:-} >"$dir/check-osm.json"
  expect_eq "$name $engine: CA pairs without a route" "${UNREACHABLE:-0}" \
    "$(json_get "$dir/check.json" unreachable)"
  expect_eq "$name $engine: CA pairs without a route in OpenSM's tables" "${UNREACHABLE:-0}" \
    "$(json_get "$dir/check-osm.json" unreachable)"
  if [[ $used == updn && -z ${ALLOW_CREDIT_LOOPS:-} ]]; then
    expect_eq "$name $engine: credit loops" 0 "$(json_get "$dir/check.json" credit_loops)"
  fi
}

# Fat-trees (the generators of docs/topology-generators.md; cut cables and shuffled host ports
# from `topo mutate`, seeded). OpenSM finds the roots of updn itself here.
"$CLOUDSM" topo gen kary 4 3 -o "$WORK/k4n3.topo"
"$CLOUDSM" topo gen kary 8 2 -o "$WORK/k8n2.topo"
"$CLOUDSM" topo gen xgft "3;4,3,6;1,4,3" -o "$WORK/xgft.topo"
"$CLOUDSM" topo gen pgft "2;4,4;1,2;1,2" --hosts-per-leaf 3 -o "$WORK/pgft.topo"
"$CLOUDSM" topo gen pgft "3;4,4,4;1,2,2;1,2,1" --hosts-per-leaf 3 -o "$WORK/pgft3.topo"
"$CLOUDSM" topo mutate "$WORK/k4n3.topo" --unlink 12 --seed 3 -o "$WORK/k4n3-cut.topo"
"$CLOUDSM" topo mutate "$WORK/xgft.topo" --shuffle-hosts --unlink 5 --seed 2 -o "$WORK/xgft-mixed.topo"
for name in k4n3 k8n2 xgft pgft pgft3 k4n3-cut xgft-mixed; do
  start_ibsim "$WORK/$name.topo"
  compare "$name" "$WORK/$name.topo" minhop 0
  compare "$name" "$WORK/$name.topo" updn 0
  stop_ibsim
done

# Not trees. Automatic roots: no switch has 90% of the CAs at one distance, so OpenSM and we both
# fall back to minhop; with roots named, updn proper. On the ring and torus minhop has credit
# loops (shortest paths both ways round), which is why updn exists.
echo 0x2c9000a000101 >"$WORK/ring.roots"
printf '0x2c9000a000101\n0x2c9000a000505\n' >"$WORK/torus.roots"
for name in ring6 torus3x3; do
  start_ibsim "$DATA/$name.net"
  compare "$name" "$DATA/$name.net" minhop 0
  expect_eq "$name minhop: credit loop" 1 "$(json_get "$WORK/$name-minhop/check.json" credit_loops)"
  compare "$name-auto" "$DATA/$name.net" updn 0
  stop_ibsim
done
start_ibsim "$DATA/ring6.net"
compare ring6-root "$DATA/ring6.net" updn 0 --root-guids "$WORK/ring.roots"
stop_ibsim
start_ibsim "$DATA/torus3x3.net"
# Two roots that are not cabled to each other cannot reach each other's CAs (2 x 2 x 2 pairs).
UNREACHABLE=8 compare torus-roots "$DATA/torus3x3.net" updn 0 --root-guids "$WORK/torus.roots"
# connect_roots routes to the roots by plain shortest paths: complete, but no longer up*/down*.
ALLOW_CREDIT_LOOPS=1 compare torus-connect "$DATA/torus3x3.net" updn 0 \
  --root-guids "$WORK/torus.roots" --connect-roots
stop_ibsim

# A small graph where OpenSM's updn offers a switch that routes come down into an equally short
# up hop (and takes it): our updn does not, and differs in exactly that entry.
printf '0x2c9005339aa04\n0x2c900d7b45009\n' >"$WORK/turn.roots"
start_ibsim "$DATA/updn-turn.net"
compare updn-turn "$DATA/updn-turn.net" minhop 0
compare updn-turn "$DATA/updn-turn.net" updn 1 --root-guids "$WORK/turn.roots"
stop_ibsim
# ... and where no route comes down into that switch, OpenSM's up hop is safe and we take it too.
echo 0x10 >"$WORK/uphop.roots"
start_ibsim "$DATA/updn-uphop.net"
# One CA: no CA pair, so lft check traces from it to every LID (switches included) instead.
CHECK_OPTS=--all-lids compare updn-uphop "$DATA/updn-uphop.net" updn 0 --root-guids "$WORK/uphop.roots"
stop_ibsim
finish
