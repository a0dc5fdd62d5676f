#!/usr/bin/env bash
# cloudsm sm counters, sm events and weights learn --store on a monitoring store written through
# the library by tests/lib/monitor_fixture.c (its header lists the known numbers): text, CSV and
# JSON, windows as durations, ISO times and epoch seconds, filters, the default store path under
# --state-dir, -o written atomically, and errors (exit 1 naming the file, exit 2 for usage).
source "$(dirname "$0")/../lib/common.sh"
FIXTURE=${CLOUDSM_BUILD_DIR:?}/tests/monitor_fixture

rows() { tail -n +2 "$WORK/out" | wc -l; } # data lines after the header

# A store whose polls end 10 s before now (durations reach them), and one at a fixed time.
NOW=$(date +%s)
mkdir -p "$WORK/state"
"$FIXTURE" "$WORK/state/monitor.sqlite" "$NOW" || fail "fixture"
T=1795766400 # 2026-11-27T08:00:00Z
"$FIXTURE" "$WORK/fixed.sqlite" "$T" || fail "fixture"
S=(--store "$WORK/fixed.sqlite")

# ---- help ----
for cmd in counters events; do
  run 0 "$CLOUDSM" sm "$cmd" --help
  check "sm $cmd --help has a usage line" grep -q "^usage: cloudsm sm $cmd" "$WORK/out"
  check "sm $cmd --help has examples" grep -q "^examples:" "$WORK/out"
  check "sm $cmd --help explains the time forms" grep -q "ISO 8601" "$WORK/out"
done
run 0 "$CLOUDSM" help
check "overview lists sm counters" grep -q "^  sm counters " "$WORK/out"
check "overview lists sm events" grep -q "^  sm events " "$WORK/out"

# ---- counters: text ----
run 0 "$CLOUDSM" sm counters -d "$WORK/state"
expect_eq "default window (10m): 3 polls x 6 ports" 18 "$(rows)"
check "header names the metrics" grep -qE "^time +node +description +port +interval +flags +xmit_bytes +rcv_bytes" "$WORK/out"
check "host-b receives 4.00 kB/s" grep -qE "0x0010000000000200 host-b +1 +10s +- +40.0 kB/s +4.00 kB/s" "$WORK/out"
check "switch port 3 waits, flagged S" grep -qE "0x0020000100000001 leaf-1 +3 +10s +S .* 5.00 ticks/s" "$WORK/out"
run 0 "$CLOUDSM" sm counters "${S[@]}" --since 2026-11-27T07:59:35Z --until 2026-11-27T08:00:00Z
expect_eq "ISO window: the polls ending 07:59:40 (from :30) and :50 overlap it" 12 "$(rows)"
check "times print in UTC" grep -q "^2026-11-27T07:59:50Z " "$WORK/out"
run 0 "$CLOUDSM" sm counters "${S[@]}" --since $((T - 25)) --until $T
expect_eq "epoch window [T-25, T]: the poll at T-30 covers (T-40, T-30]: out" 12 "$(rows)"
run 0 "$CLOUDSM" sm counters "${S[@]}" --since $((T - 60)) --until $T --node 0x0010000000000200
expect_eq "--node: host-b's 3 samples" 3 "$(rows)"
check "--node: only host-b" test "$(tail -n +2 "$WORK/out" | grep -vc host-b)" -eq 0
run 0 "$CLOUDSM" sm counters "${S[@]}" --since $((T - 60)) --until $T --port 0x0020000100000001:2 --node 0x0010000000000300
expect_eq "--port and --node: either matches" 6 "$(rows)"
run 0 "$CLOUDSM" sm counters "${S[@]}" --since $((T - 60)) --until $T --metric rcv_bytes --metric xmit_wait,rcv_bytes
check "--metric: only those columns" grep -qE "flags +rcv_bytes +xmit_wait$" "$WORK/out"
run 0 "$CLOUDSM" sm counters "${S[@]}" --since 2026-11-27T09:00:00Z --until 2026-11-27T10:00:00Z
expect_eq "an empty window: the header only" 0 "$(rows)"
one_error "no samples from 2026-11-27T09:00:00Z to 2026-11-27T10:00:00Z in .*fixed.sqlite"

# ---- counters: CSV and JSON (raw numbers) ----
run 0 "$CLOUDSM" sm counters "${S[@]}" --since $((T - 60)) --until $T --csv --node 0x0010000000000100
expect_eq "CSV header" "time,node_guid,node_desc,port,port_guid,interval_s,flags,xmit_bytes,rcv_bytes,xmit_pkts,rcv_pkts,xmit_wait,errors" "$(head -1 "$WORK/out")"
expect_eq "CSV rows: a quoted description, exact rates" \
  "$((T - 30)).000,0x0010000000000100,\"host-a, rack 1\",1,0x0010000000000101,10,0,10000,1000,0,0,0,0|$((T - 20)).000,0x0010000000000100,\"host-a, rack 1\",1,0x0010000000000101,10,0,20000,2000,0,0,0,0|$((T - 10)).000,0x0010000000000100,\"host-a, rack 1\",1,0x0010000000000101,10,0,30000,3000,0,0,0,0" \
  "$(tail -n +2 "$WORK/out" | paste -sd '|')"
run 0 "$CLOUDSM" sm counters "${S[@]}" --since $((T - 60)) --until $T --json --port 0x0020000100000001:3
expect_eq "json: count" 3 "$(json_get "$WORK/out" count)"
expect_eq "json: the window's start, exact" $((T - 60)) "$(json_get "$WORK/out" since)"
check "json: exact time" grep -q "\"time\": $((T - 10))," "$WORK/out"
check "json: rcv_bytes of switch port 3" grep -q '"rcv_bytes": 30000,' "$WORK/out"
check "json: xmit_wait and its flag" grep -q '"flags": 2,' "$WORK/out"
if command -v python3 >/dev/null; then
  check "json parses" python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert len(d["samples"]) == 3' "$WORK/out"
fi

# ---- events ----
run 0 "$CLOUDSM" sm events -d "$WORK/state"
expect_eq "events of the last day" 3 "$(rows)"
check "the adapt event with its detail" grep -qE "adapt +rule hot-leaf +moved 1 VM off leaf-1  \{\"why\":\"hot leaf\",\"cost\":2\}" "$WORK/out"
run 0 "$CLOUDSM" sm events "${S[@]}" --since 2026-11-27T07:00:00Z --kind fault
expect_eq "--kind fault" 1 "$(rows)"
check "the fault's subject" grep -qE "^2026-11-27T07:58:20Z +fault +0x0020000100000001 +port 3 down$" "$WORK/out"
run 0 "$CLOUDSM" sm events "${S[@]}" --since 2026-11-27T07:00:00Z --json
expect_eq "json: count" 3 "$(json_get "$WORK/out" count)"
check "json: the detail is embedded as JSON" grep -qF '"detail": {"why":"hot leaf","cost":2}' "$WORK/out"
check "json: no subject is null" grep -qF '"subject": null,' "$WORK/out"
run 0 "$CLOUDSM" sm events "${S[@]}" --since 2026-11-27T07:00:00Z --csv
check "csv: the detail quoted" grep -qF '"{""why"":""hot leaf"",""cost"":2}"' "$WORK/out"
run 0 "$CLOUDSM" sm events "${S[@]}" --since 2026-11-27T07:56:00Z --until 2026-11-27T07:59:00Z
expect_eq "a window with one event" 1 "$(rows)"

# ---- weights learn --store ----
# host-a received (1000 + 2000 + 3000) x 10 = 60000 B, host-b 120000, host-c 90000:
# W = (x - 60000) x 99 / 60000 + 1: 1, 100, 50.5 -> 51.
run 0 "$CLOUDSM" weights learn --store "$WORK/fixed.sqlite" --since $((T - 60)) --until $T -o "$WORK/w.txt"
expect_eq "weights from the store" "0x0010000000000101 1|0x0010000000000201 100|0x0010000000000301 51" \
  "$(grep -v '^#' "$WORK/w.txt" | paste -sd '|')"
run 0 "$CLOUDSM" weights learn --store "$WORK/fixed.sqlite" --since $((T - 60)) --until $T --json
expect_eq "json: rcv_bytes_max" 120000 "$(json_get "$WORK/out" rcv_bytes_max)"
expect_eq "json: seconds is the window" 60 "$(json_get "$WORK/out" seconds)"
expect_eq "json: bytes/s of the busiest (120000 / 60)" 2000 "$(json_get "$WORK/out" bytes_per_second_max)"
# the last poll only (the one ending at T - 20 covers nothing of the window): 3000, 4000, 3000
# x 10 -> 1, 100, 1
run 0 "$CLOUDSM" weights learn --store "$WORK/fixed.sqlite" --since $((T - 20)) --until $T
expect_eq "a window of one poll" "1 100 1" "$(grep -v '^#' "$WORK/out" | cut -d' ' -f2 | paste -sd ' ')"
run 1 "$CLOUDSM" weights learn --store "$WORK/fixed.sqlite" --since 2026-11-28T00:00:00Z --until 2026-11-28T01:00:00Z
one_error "fixed.sqlite: no CA port has samples in the window"
run 2 "$CLOUDSM" weights learn --store "$WORK/fixed.sqlite"
usage_error "--store wants --since"
run 2 "$CLOUDSM" weights learn --store "$WORK/fixed.sqlite" --since 1h "$WORK/w.txt"
run 2 "$CLOUDSM" weights learn --store "$WORK/fixed.sqlite" --since 1h --seconds 5
run 2 "$CLOUDSM" weights learn --store "$WORK/fixed.sqlite" --since soon

# ---- errors ----
run 1 "$CLOUDSM" sm counters --store "$WORK/none.sqlite"
one_error "^cloudsm sm counters: $WORK/none.sqlite: no monitoring store"
check "a missing store is not created" test ! -e "$WORK/none.sqlite"
run 1 "$CLOUDSM" sm events -d "$WORK/nowhere"
one_error "$WORK/nowhere/monitor.sqlite: no monitoring store"
echo "not a database" >"$WORK/notes.txt"
run 1 "$CLOUDSM" sm counters --store "$WORK/notes.txt"
one_error "notes.txt: not a cloudsm monitoring store"
expect_eq "the foreign file is untouched" "not a database" "$(cat "$WORK/notes.txt")"
run 1 "$CLOUDSM" sm counters "${S[@]}" --node 0x99
one_error "no node 0x0000000000000099 in the store"
run 2 "$CLOUDSM" sm counters "${S[@]}" --since 30
usage_error "a duration needs a unit \(30s\)"
run 2 "$CLOUDSM" sm counters "${S[@]}" --since 2026-11-27T08:00:00
usage_error "has no zone"
run 2 "$CLOUDSM" sm counters "${S[@]}" --since 1h --until 2h
usage_error "--since is after --until"
run 2 "$CLOUDSM" sm counters "${S[@]}" --json --csv
usage_error "give --json or --csv, not both"
run 2 "$CLOUDSM" sm counters "${S[@]}" --metric bytes
usage_error "--metric 'bytes': no such metric"
run 2 "$CLOUDSM" sm counters "${S[@]}" --port 0x10
run 2 "$CLOUDSM" sm counters "${S[@]}" --node nope
run 2 "$CLOUDSM" sm counters --store a -d b
run 2 "$CLOUDSM" sm counters "${S[@]}" extra
run 2 "$CLOUDSM" sm events "${S[@]}" --bogus
run 2 "$CLOUDSM" sm events "${S[@]}" --since

# ---- -o: whole or not at all ----
run 0 "$CLOUDSM" sm counters "${S[@]}" --since $((T - 60)) --until $T --csv -o "$WORK/c.csv"
expect_eq "-o: nothing on stdout" 0 "$(wc -c <"$WORK/out")"
expect_eq "-o: the file has 18 rows and a header" 19 "$(wc -l <"$WORK/c.csv")"
echo keep >"$WORK/keep.csv"
run 1 "$CLOUDSM" sm counters "${S[@]}" --node 0x99 -o "$WORK/keep.csv"
expect_eq "old output kept when the command fails" keep "$(cat "$WORK/keep.csv")"
check "no temporary files left" test "$(ls -a "$WORK" | grep -c tmp)" -eq 0
finish
