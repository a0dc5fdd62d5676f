#!/usr/bin/env bash
# cloudsm adapt simulate: a monitoring store of hot receivers on a 4-ary-2-tree (written through
# the library by tests/lib/monitor_fixture.c --hot-receivers; tests/lib/hot_receivers.h has the
# numbers: seconds 11 to 40 of 80 hot) replayed through docs/adapt/examples/hot_receivers.rules.
# Firings only, then with the fabric and ftree's tables: the first firing executes, the second
# finds nothing to change, nothing fires after the hot phase; text and --json, two runs byte
# for byte the same, the operator's limits, windows and steps, -o, and bad inputs (exit 1 with
# the file, exit 2 for usage).
source "$(dirname "$0")/../lib/common.sh"
FIXTURE=${CLOUDSM_BUILD_DIR:?}/tests/monitor_fixture
RULES=$(cd "$CLOUDSM_TEST_DATA/../../docs/adapt/examples" && pwd)/hot_receivers.rules
T0=1795766400 # 2026-11-27T08:00:00Z

"$CLOUDSM" topo gen xgft "2;4,4;1,4" --lids -o "$WORK/fabric.topo" || fail "topo gen"
"$CLOUDSM" route -R ftree "$WORK/fabric.topo" -o "$WORK/ftree.lfts" >/dev/null || fail "route"
"$FIXTURE" --hot-receivers "$WORK/monitor.sqlite" "$WORK/fabric.topo" "$T0" || fail "fixture"
S=(--store "$WORK/monitor.sqlite")
F=(--topology "$WORK/fabric.topo" --lfts "$WORK/ftree.lfts")

# ---- help ----
run 0 "$CLOUDSM" adapt simulate --help
check "help has a usage line" grep -q "^usage: cloudsm adapt simulate RULES" "$WORK/out"
check "help has examples" grep -q "^examples:" "$WORK/out"
check "help explains the verdict lines" grep -q "VERDICT" "$WORK/out"
run 0 "$CLOUDSM" help
check "overview lists adapt simulate" grep -q "^  adapt simulate " "$WORK/out"

# ---- firings only ----
run 0 "$CLOUDSM" adapt simulate "$RULES" "${S[@]}"
expect_eq "fired when held 2s (13), again after the cooldown (33)" \
  "$((T0 + 13)).000 $((T0 + 33)).000" "$(sed -nE 's/^([0-9.]+) hot_receivers fired: .*/\1/p' "$WORK/out" | paste -sd ' ')"
check "the action as resolved" grep -qxF "$((T0 + 13)).000 hot_receivers -> reroute(engine = \"wftree\", weights = learned(over 4s))" "$WORK/out"
check "the condition's values" grep -qF "$((T0 + 11)).000 hot_receivers holding: max(node.rcv_bytes over 4s)=2.288 GB/s > ratio=3 * avg(node.rcv_bytes over 4s)=600 MB/s" "$WORK/out"
check "false again once the window is calm (44)" grep -q "^$((T0 + 44)).000 hot_receivers false: " "$WORK/out"
check "no decisions without a fabric" test "$(grep -c ' reroute(wftree' "$WORK/out")" -eq 0
expect_eq "summary" "simulated 80 steps from 2026-11-27T08:00:01Z to 2026-11-27T08:01:20Z: 2 firings (no fabric: nothing planned or decided)" "$(tail -n 1 "$WORK/out")"
expect_eq "nothing on stderr" 0 "$(wc -c <"$WORK/err")"

# ---- with the fabric: planned, decided, executed ----
run 0 "$CLOUDSM" adapt simulate "$RULES" "${S[@]}" "${F[@]}" --t-smp 0.01
cp "$WORK/out" "$WORK/text1"
decisions=$(grep -E '^[0-9.]+ hot_receivers reroute\(' "$WORK/out")
expect_eq "two decisions" 2 "$(grep -c . <<<"$decisions")"
first=$(head -n 1 <<<"$decisions")
second=$(tail -n 1 <<<"$decisions")
check "the first executes with learned weights" grep -qE "^$((T0 + 13)).000 hot_receivers reroute\(wftree, learned weights\): execute: [1-9][0-9]* LFT SMPs, expected gain " <<<"$first"
smps=$(sed -nE 's/.*: execute: ([0-9]+) LFT SMPs.*/\1/p' <<<"$first")
gain=$(sed -nE 's/.*expected gain ([0-9.]+)%.*/\1/p' <<<"$first")
check "gain above 5% ($gain)" awk -v g="$gain" 'BEGIN { exit !(g > 5) }'
check "predicted: SMPs x 0.01 ms" grep -qF "predicted $(awk -v n="$smps" 'BEGIN { printf "%.3f", n * 0.01 }') ms: $smps SMPs for" <<<"$first"
check "the second is no-change" grep -qE "^$((T0 + 33)).000 hot_receivers reroute\(wftree, learned weights\): no-change: 0 LFT SMPs.*: no change: the candidate's tables are those in force$" <<<"$second"
last_fired=$(sed -nE 's/^([0-9]+)\.000 hot_receivers fired: .*/\1/p' "$WORK/out" | tail -n 1)
check "nothing fires after the hot phase (ends at T0 + 40)" test "$last_fired" -le $((T0 + 40))
expect_eq "summary" "simulated 80 steps from 2026-11-27T08:00:01Z to 2026-11-27T08:01:20Z: 2 firings, 2 reroutes decided, 1 executed, $smps LFT SMPs sent" "$(tail -n 1 "$WORK/out")"
run 0 "$CLOUDSM" adapt simulate "$RULES" "${S[@]}" "${F[@]}" --t-smp 0.01
check "two runs: the same text, byte for byte" cmp -s "$WORK/text1" "$WORK/out"

# ---- --json ----
run 0 "$CLOUDSM" adapt simulate "$RULES" "${S[@]}" "${F[@]}" --json
cp "$WORK/out" "$WORK/json1"
run 0 "$CLOUDSM" adapt simulate "$RULES" "${S[@]}" "${F[@]}" --json
check "two runs: the same JSON, byte for byte" cmp -s "$WORK/json1" "$WORK/out"
check "json: since not given is null" grep -qF '"since": null,' "$WORK/out"
check "json: the policy's mode" grep -qF '"mode": "on",' "$WORK/out"
check "json: the first verdict" grep -qF '"verdict": "execute",' "$WORK/out"
check "json: the second verdict" grep -qF '"verdict": "no-change",' "$WORK/out"
check "json: the LFT SMPs of the first" grep -qF "\"lft_smps\": $smps," "$WORK/out"
check "json: no routing time (it varies)" test "$(grep -c route_ms "$WORK/out")" -eq 0
if command -v python3 >/dev/null; then
  check "json parses, with the text's numbers" python3 - "$WORK/out" "$smps" "$T0" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
smps, t0 = int(sys.argv[2]), int(sys.argv[3])
s = d["summary"]
assert (s["steps"], s["firings"], s["reroutes"], s["executions"], s["lft_smps"]) == (80, 2, 2, 1, smps), s
fired = [(st["time"], a) for st in d["steps"] for f in st["firings"] for a in f["actions"]]
assert [t for t, _ in fired] == [t0 + 13, t0 + 33], fired
first, second = fired[0][1], fired[1][1]
assert first["verdict"] == "execute" and first["executed"] is True
assert first["args"] == {"engine": '"wftree"', "weights": "learned(over 4s)"}
assert first["candidate"]["expected_gain"] > 0.05 and first["weights"] == 16
assert first["traffic_until"] - first["traffic_since"] == 4
assert first["predicted_ms"] is None  # no --t-smp
assert second["verdict"] == "no-change" and second["candidate"]["lft_smps"] == 0
assert d["policy"]["min_gain_percent"] == 5 and d["until"] is None
EOF
fi

# ---- -o: whole or not at all ----
run 0 "$CLOUDSM" adapt simulate "$RULES" "${S[@]}" "${F[@]}" --t-smp 0.01 -o "$WORK/sim.txt"
expect_eq "-o: nothing on stdout" 0 "$(wc -c <"$WORK/out")"
check "-o: the same text" cmp -s "$WORK/text1" "$WORK/sim.txt"
echo keep >"$WORK/keep.txt"
run 1 "$CLOUDSM" adapt simulate "$RULES" --store "$WORK/none.sqlite" -o "$WORK/keep.txt"
expect_eq "old output kept when the command fails" keep "$(cat "$WORK/keep.txt")"

# ---- the operator's limits ----
run 0 "$CLOUDSM" adapt simulate "$RULES" "${S[@]}" "${F[@]}" --mode dry-run
expect_eq "dry-run: both refused as dry-run" 2 "$(grep -c ": dry-run: $smps LFT SMPs" "$WORK/out")"
check "dry-run: nothing executed" grep -q "2 reroutes decided, 0 executed, 0 LFT SMPs sent$" "$WORK/out"
run 0 "$CLOUDSM" adapt simulate "$RULES" "${S[@]}" "${F[@]}" --max-smps-per-hour $((smps - 1))
expect_eq "a budget too small: rate-limited twice" 2 "$(grep -c ": rate-limited: .*would exceed the hour's budget (0 of $((smps - 1)) used)" "$WORK/out")"
run 0 "$CLOUDSM" adapt simulate "$RULES" "${S[@]}" "${F[@]}" --min-gain 99
check "too little gain" grep -q ": too-little-gain: .* is below the minimum 99%$" "$WORK/out"
run 0 "$CLOUDSM" adapt simulate "$RULES" "${S[@]}" "${F[@]}" --max-smps-per-percent 0
check "0 SMPs per percent: no bound" grep -q ": execute: " "$WORK/out"
run 0 "$CLOUDSM" adapt simulate "$RULES" "${S[@]}" "${F[@]}" --quiet-hours 08:00-08:01 --utc
check "quiet hours on UTC's clock (08:00:13Z)" grep -q ": quiet-hours: .*: quiet hours 08:00-08:01$" "$WORK/out"
run 0 env TZ="<+12>-12" "$CLOUDSM" adapt simulate "$RULES" "${S[@]}" "${F[@]}" --quiet-hours 08:00-08:01
check "quiet hours on the local clock (20:00 at UTC+12): executes" grep -q ": execute: " "$WORK/out"
run 0 env TZ="<+12>-12" "$CLOUDSM" adapt simulate "$RULES" "${S[@]}" "${F[@]}" --quiet-hours 20:00-20:01
check "quiet hours on the local clock (20:00 at UTC+12): quiet" grep -q ": quiet-hours: " "$WORK/out"

# ---- windows, steps, parameters, the default store ----
run 0 "$CLOUDSM" adapt simulate "$RULES" "${S[@]}" --until 2026-11-27T08:00:20Z
check "--until: 20 steps, the first firing only" grep -q "^simulated 20 steps from .* to 2026-11-27T08:00:20Z: 1 firing " "$WORK/out"
run 0 "$CLOUDSM" adapt simulate "$RULES" "${S[@]}" --since $((T0 + 41))
check "--since after the hot phase: nothing fires" grep -q "^simulated 40 steps from 2026-11-27T08:00:41Z .*: 0 firings " "$WORK/out"
run 0 "$CLOUDSM" adapt simulate "$RULES" "${S[@]}" --since 2026-11-28T00:00:00Z --until 2026-11-28T01:00:00Z
expect_eq "an empty window" "simulated 0 steps: no samples in the window" "$(cat "$WORK/out")"
run 0 "$CLOUDSM" adapt simulate "$RULES" "${S[@]}" --step 5s
# steps at 1, 6, 11, ...: holding from 11, fired at 16 (held 5 s >= 2 s), again at 36
check "--step 5s: 16 steps" grep -q "^simulated 16 steps from 2026-11-27T08:00:01Z to 2026-11-27T08:01:16Z: 2 firings " "$WORK/out"
check "--step 5s: fired at 16" grep -q "^$((T0 + 16)).000 hot_receivers fired: " "$WORK/out"
run 0 "$CLOUDSM" adapt simulate "$RULES" "${S[@]}" --set ratio=10
check "--set ratio=10: 9 GB/s is not ten times 2.25 GB/s" grep -q ": 0 firings " "$WORK/out"
mkdir -p "$WORK/state"
cp "$WORK/monitor.sqlite" "$WORK/state/monitor.sqlite"
run 0 "$CLOUDSM" adapt simulate "$RULES" -d "$WORK/state"
check "-d: STATE_DIR/monitor.sqlite" grep -q ": 2 firings " "$WORK/out"

# ---- bad input (exit 1, one line naming the file) ----
run 1 "$CLOUDSM" adapt simulate "$RULES" --store "$WORK/none.sqlite"
one_error "^cloudsm adapt simulate: $WORK/none.sqlite: no monitoring store"
check "a missing store is not created" test ! -e "$WORK/none.sqlite"
printf 'rule r {\n    when avg(node.rcv_bytes over 4s) > limit\n    then log(message = "x")\n}\n' >"$WORK/bad.rules"
run 1 "$CLOUDSM" adapt simulate "$WORK/bad.rules" "${S[@]}"
one_error "^cloudsm adapt simulate: $WORK/bad.rules:2:40: unknown parameter 'limit'$"
run 1 "$CLOUDSM" adapt simulate "$WORK/no.rules" "${S[@]}"
one_error "no.rules"
run 1 "$CLOUDSM" adapt simulate "$RULES" "${S[@]}" --set ratio=fast
one_error "ratio"
run 1 "$CLOUDSM" adapt simulate "$RULES" "${S[@]}" --topology "$WORK/fabric.topo" --lfts "$WORK/none.lfts"
one_error "none.lfts"
sed '5s/.*/[1]  garbage/' "$WORK/fabric.topo" >"$WORK/bad.topo"
run 1 "$CLOUDSM" adapt simulate "$RULES" "${S[@]}" --topology "$WORK/bad.topo" --lfts "$WORK/ftree.lfts"
one_error "^cloudsm adapt simulate: $WORK/bad.topo:5: port line outside a node record"
"$CLOUDSM" topo gen kary 2 2 --lids -o "$WORK/other.topo" || fail "topo gen"
"$CLOUDSM" route -R ftree "$WORK/other.topo" -o "$WORK/other.lfts" >/dev/null || fail "route"
run 0 "$CLOUDSM" adapt simulate "$RULES" "${S[@]}" --topology "$WORK/other.topo" --lfts "$WORK/other.lfts"
one_error "warning: 12 of the 16 CA ports recorded are not in $WORK/other.topo"

# ---- usage (exit 2) ----
run 2 "$CLOUDSM" adapt simulate "$RULES" "${S[@]}" --topology "$WORK/fabric.topo"
usage_error "--topology and --lfts go together"
run 2 "$CLOUDSM" adapt simulate "$RULES" "${S[@]}" --lfts "$WORK/ftree.lfts"
usage_error "--topology and --lfts go together"
run 2 "$CLOUDSM" adapt simulate "$RULES" "${S[@]}" --max-smps-per-hour 10
usage_error "--max-smps-per-hour is for deciding reroutes: give --topology and --lfts"
run 2 "$CLOUDSM" adapt simulate "$RULES" "${S[@]}" "${F[@]}" --mode off
usage_error "--mode is on or dry-run, not 'off'"
run 2 "$CLOUDSM" adapt simulate "$RULES" "${S[@]}" --step 5
usage_error "--step '5': a duration's units are s, m, h, d and w"
run 2 "$CLOUDSM" adapt simulate "$RULES" "${S[@]}" "${F[@]}" --quiet-hours 8-18
usage_error "--quiet-hours '8-18' is not a daily window"
run 2 "$CLOUDSM" adapt simulate "$RULES" "${S[@]}" "${F[@]}" --min-gain 101
run 2 "$CLOUDSM" adapt simulate "$RULES" "${S[@]}" "${F[@]}" --t-smp 0
run 2 "$CLOUDSM" adapt simulate "$RULES" "${S[@]}" --set ratio
usage_error "--set wants NAME=VALUE"
run 2 "$CLOUDSM" adapt simulate "${S[@]}"
usage_error "wants one rules file"
run 2 "$CLOUDSM" adapt simulate "$RULES" "$RULES" "${S[@]}"
run 2 "$CLOUDSM" adapt simulate "$RULES" --store a -d b
usage_error "give one of --store, --state-dir and --config"
run 2 "$CLOUDSM" adapt simulate "$RULES" "${S[@]}" --csv
usage_error "unknown option '--csv'"
run 2 "$CLOUDSM" adapt simulate "$RULES" "${S[@]}" --since soon
finish
