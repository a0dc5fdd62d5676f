#!/usr/bin/env bash
# cloudsm weights learn on what perfquery -x prints live: ibsim (ring6.net) with LIDs from
# `opensm -o`, a snapshot of four host ports, then 0, 1, 2 and 3 more perfquery queries to them
# (ibsim counts the PerfMgt MADs a port receives in its PortRcvData), a second snapshot. The
# extra traffic grows by equal steps, so the weights in [1, 100] are 1, 34, 67 and 100 whatever
# one query adds; and the snapshot against itself weighs every port 1.
source "$(dirname "$0")/../lib/common.sh"
require_oracles ibsim opensm perfquery
cd "$WORK" || exit 1

start_ibsim "$CLOUDSM_TEST_DATA/ring6.net"
run_opensm osm minhop || fail "opensm -o"
check "opensm wrote guid2lid" test -s osm/guid2lid

guids=(0x0002c9000b000101 0x0002c9000b000201 0x0002c9000b000301 0x0002c9000b000401)
lids=()
for guid in "${guids[@]}"; do
  lid=$(awk -v g="$guid" '$1 == g { print $2 }' osm/guid2lid)
  [[ -n "$lid" ]] || fail "no LID for $guid in guid2lid"
  lids+=($((lid)))
done
snapshot() { # snapshot FILE: perfquery -x of the four host ports, concatenated
  local lid
  for lid in "${lids[@]}"; do sim perfquery -x "$lid" 1 2>/dev/null; done >"$1"
}
snapshot before.txt
check "perfquery -x printed a record per port" test "$(grep -c '^# Port extended counters: Lid' before.txt)" -eq 4
for i in 1 2 3; do
  for ((extra = i; extra <= 3; extra++)); do
    sim perfquery -x "${lids[$extra]}" 1 >/dev/null 2>&1 || fail "perfquery LID ${lids[$extra]}"
  done
done
snapshot after.txt

"$CLOUDSM" weights learn before.txt after.txt --guid2lid osm/guid2lid -o weights.txt \
  || fail "weights learn"
for i in 0 1 2 3; do
  want=$((i == 0 ? 1 : i == 1 ? 34 : i == 2 ? 67 : 100))
  expect_eq "weight of ${guids[$i]} (${i} more queries)" "$want" \
    "$(awk -v g="${guids[$i]}" '$1 == g { print $2 }' weights.txt)"
done
"$CLOUDSM" weights learn before.txt before.txt --guid2lid osm/guid2lid >same.txt || fail "same"
expect_eq "a snapshot against itself: every port weighs a" "1 1 1 1" \
  "$(grep -v '^#' same.txt | cut -d' ' -f2 | paste -sd ' ')"
# The counters only go up: after -> before is a reset, named with the port.
"$CLOUDSM" weights learn after.txt before.txt --guid2lid osm/guid2lid 2>err.txt
check "swapped snapshots: the counter went down" grep -q "before.txt:[0-9]*: port 0x0002c9000b0001.*PortRcvData went down" err.txt
finish
