#!/usr/bin/env bash
# cloudsm weights learn: weights from hand-made CSV snapshots (known answers), from real
# perfquery -x output captured on ibsim (tests/data/weights/README.md), the JSON report, help,
# usage errors, input errors (file:line, exit 1) and -o written atomically.
source "$(dirname "$0")/../lib/common.sh"
DATA=${CLOUDSM_TEST_DATA:?}/weights

# run and one_error: tests/lib/common.sh

# ---- help ----
run 0 "$CLOUDSM" weights learn --help
check "help has a usage line" grep -q "^usage: cloudsm weights learn BEFORE AFTER" "$WORK/out"
check "help has examples" grep -q "^examples:" "$WORK/out"
check "help gives the map" grep -qF "W(x) = (x - min) * (B - A) / (max - min) + A" "$WORK/out"
run 0 "$CLOUDSM" help weights learn
run 0 "$CLOUDSM" help
check "overview lists weights learn" grep -q "^  weights learn " "$WORK/out"
run 2 "$CLOUDSM" weights

# ---- CSV snapshots with known answers ----
# Increases 100, 300, 500, 150 over 10 s; min 100, max 500: W = (x - 100) * 99 / 400 + 1 gives
# 1, 50.5 -> 51, 100, 12.375 -> 13.
cat >"$WORK/before.csv" <<'EOF'
# taken at 10:00:00
port_guid,rcv_data
0x0002c90000000101,1000
0x0002c90000000201,2000
0x0002c90000000301,0
0x0002c90000000401,50
EOF
cat >"$WORK/after.csv" <<'EOF'
port_guid,rcv_data
0x0002c90000000401,200
0x0002c90000000301,500
0x0002c90000000201,2300
0x0002c90000000101,1100
EOF
run 0 "$CLOUDSM" weights learn "$WORK/before.csv" "$WORK/after.csv"
expect_eq "weights from the CSV snapshots" \
  "0x0002c90000000101 1|0x0002c90000000201 51|0x0002c90000000301 100|0x0002c90000000401 13" \
  "$(grep -v '^#' "$WORK/out" | paste -sd '|')"
run 0 "$CLOUDSM" weights learn "$WORK/before.csv" "$WORK/after.csv" -a 10 -b 20
# (x - 100) * 10 / 400 + 10: 10, 15, 20, 11.25 -> 11
expect_eq "weights in [10, 20]" "10 15 20 11" "$(grep -v '^#' "$WORK/out" | cut -d' ' -f2 | paste -sd ' ')"
# Everybody received as much: every port weighs a.
sed 's/,2300$/,2100/; s/,500$/,100/; s/,200$/,150/' "$WORK/after.csv" >"$WORK/even.csv"
run 0 "$CLOUDSM" weights learn "$WORK/before.csv" "$WORK/even.csv" -a 5
expect_eq "equal traffic: all weigh a" "5 5 5 5" "$(grep -v '^#' "$WORK/out" | cut -d' ' -f2 | paste -sd ' ')"
# gzip-compressed snapshots read the same.
gzip -c "$WORK/after.csv" >"$WORK/after.csv.gz"
run 0 "$CLOUDSM" weights learn "$WORK/before.csv" "$WORK/after.csv.gz" -o "$WORK/gz.txt"
run 0 "$CLOUDSM" weights learn "$WORK/before.csv" "$WORK/after.csv" -o "$WORK/plain.txt"
check "gzip snapshot gives the same weights" cmp -s "$WORK/gz.txt" "$WORK/plain.txt"
expect_eq "-o writes nothing on stdout" 0 "$(wc -c <"$WORK/out")"

# ---- JSON ----
run 0 "$CLOUDSM" weights learn "$WORK/before.csv" "$WORK/after.csv" --seconds 10 --json
expect_eq "json: ports" 4 "$(json_get "$WORK/out" ports)"
expect_eq "json: rcv_data_min" 100 "$(json_get "$WORK/out" rcv_data_min)"
expect_eq "json: rcv_data_max" 500 "$(json_get "$WORK/out" rcv_data_max)"
expect_eq "json: bytes/s of the busiest port (500 * 4 / 10)" 200 "$(json_get "$WORK/out" bytes_per_second_max)"
check "json: per-port weight" grep -qE '"weight": 51' "$WORK/out"
run 0 "$CLOUDSM" weights learn "$WORK/before.csv" "$WORK/after.csv" --json
check "json without --seconds: no bandwidth" test "$(grep -c bytes_per_second "$WORK/out")" -eq 0

# ---- real perfquery -x output from ibsim ----
run 0 "$CLOUDSM" weights learn "$DATA/perfquery-before.txt" "$DATA/perfquery-after.txt" \
  --guid2lid "$DATA/ring6.guid2lid" -o "$WORK/pq.txt"
expect_eq "perfquery: increases 144, 288, 432, 576 -> 1, 34, 67, 100" \
  "0x0002c9000b000101 1|0x0002c9000b000201 34|0x0002c9000b000301 67|0x0002c9000b000401 100" \
  "$(grep -v '^#' "$WORK/pq.txt" | paste -sd '|')"
run 0 "$CLOUDSM" weights learn "$DATA/perfquery-before.txt" "$DATA/perfquery-after.txt" \
  --guid2lid "$DATA/ring6.guid2lid" --json --seconds 2
expect_eq "perfquery json: rcv_data_max" 576 "$(json_get "$WORK/out" rcv_data_max)"
expect_eq "perfquery json: bytes/s (576 * 4 / 2)" 1152 "$(json_get "$WORK/out" bytes_per_second_max)"
run 1 "$CLOUDSM" weights learn "$DATA/perfquery-before.txt" "$DATA/perfquery-after.txt"
one_error "perfquery-before.txt:1: perfquery output names ports by LID: a guid2lid file is needed"

# ---- errors: exit 1, one line, file:line ----
grep -v 0x0002c90000000301 "$WORK/after.csv" >"$WORK/missing.csv"
run 1 "$CLOUDSM" weights learn "$WORK/before.csv" "$WORK/missing.csv"
one_error "^cloudsm weights learn: $WORK/before.csv:5: port 0x0002c90000000301 is not in $WORK/missing.csv"
# A record of AFTER edited down (a counter reset): the error names the port and both places.
sed 's/^PortRcvData:\.*1800$/PortRcvData:.....................1000/' "$DATA/perfquery-after.txt" >"$WORK/reset.txt"
check "the edit took" grep -q "PortRcvData:\.*1000$" "$WORK/reset.txt"
run 1 "$CLOUDSM" weights learn "$DATA/perfquery-before.txt" "$WORK/reset.txt" --guid2lid "$DATA/ring6.guid2lid"
one_error "^cloudsm weights learn: $WORK/reset.txt:34: port 0x0002c9000b000401: PortRcvData went down from 1224 \(.*perfquery-before.txt:34\) to 1000"
printf 'port_guid,rcv_data\n0x10,5\nthis is not a counter\n' >"$WORK/garbage.csv"
run 1 "$CLOUDSM" weights learn "$WORK/before.csv" "$WORK/garbage.csv"
one_error "^cloudsm weights learn: $WORK/garbage.csv:3: expected \"port GUID,rcv_data\""
sed '5s/.*/PortRcvData:.......12 apples/' "$DATA/perfquery-before.txt" >"$WORK/garbage.txt"
run 1 "$CLOUDSM" weights learn "$WORK/garbage.txt" "$DATA/perfquery-after.txt" --guid2lid "$DATA/ring6.guid2lid"
one_error "^cloudsm weights learn: $WORK/garbage.txt:5: PortRcvData \"12 apples\" is not a whole number"
run 1 "$CLOUDSM" weights learn "$DATA/ring6.guid2lid" "$WORK/after.csv"
one_error "ring6.guid2lid:1: expected a port counter snapshot .*found an OpenSM guid2lid file"
run 1 "$CLOUDSM" weights learn "$WORK/before.csv" "$WORK/does-not-exist"
one_error "does-not-exist"

# ---- usage errors: exit 2 ----
run 2 "$CLOUDSM" weights learn "$WORK/before.csv"
run 2 "$CLOUDSM" weights learn "$WORK/before.csv" "$WORK/after.csv" -a 0
run 2 "$CLOUDSM" weights learn "$WORK/before.csv" "$WORK/after.csv" -b 1000001
run 2 "$CLOUDSM" weights learn "$WORK/before.csv" "$WORK/after.csv" -a 50 -b 10
run 2 "$CLOUDSM" weights learn "$WORK/before.csv" "$WORK/after.csv" --seconds 0
run 2 "$CLOUDSM" weights learn "$WORK/before.csv" "$WORK/after.csv" --seconds x
run 2 "$CLOUDSM" weights learn "$WORK/before.csv" "$WORK/after.csv" --bogus

# ---- -o: the whole file or the old one ----
echo keep >"$WORK/keep.txt"
run 1 "$CLOUDSM" weights learn "$WORK/before.csv" "$WORK/missing.csv" -o "$WORK/keep.txt"
expect_eq "old output kept when learning fails" keep "$(cat "$WORK/keep.txt")"
run 1 "$CLOUDSM" weights learn "$WORK/before.csv" "$WORK/after.csv" -o "$WORK/no-such-dir/w.txt"
check "no directory created" test ! -e "$WORK/no-such-dir"
run 0 "$CLOUDSM" weights learn "$WORK/before.csv" "$WORK/after.csv" -o "$WORK/keep.txt"
check "-o replaced the old file" cmp -s "$WORK/keep.txt" "$WORK/plain.txt"
check "no temporary files left" test "$(ls -a "$WORK" | grep -c tmp)" -eq 0
finish
