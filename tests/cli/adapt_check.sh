#!/usr/bin/env bash
# cloudsm adapt check / actions: the example rule files check and list as written, --json,
# --set overrides, each class of error as one line FILE:LINE:COLUMN (exit 1), usage errors
# (exit 2), and the action registry.
source "$(dirname "$0")/../lib/common.sh"
EXAMPLES=$(cd "$CLOUDSM_TEST_DATA/../../docs/adapt/examples" && pwd)

# one_error TEXT: stderr is exactly one line, TEXT
one_error() {
  expect_eq "one line on stderr" 1 "$(wc -l <"$WORK/err")"
  expect_eq "the error" "$1" "$(cat "$WORK/err")"
}

# ---- help ----
run 0 "$CLOUDSM" adapt check --help
check "help has a usage line" grep -q "^usage: cloudsm adapt check RULES" "$WORK/out"
check "help has examples" grep -q "^examples:" "$WORK/out"
run 0 "$CLOUDSM" help adapt check
run 0 "$CLOUDSM" adapt actions --help
run 0 "$CLOUDSM" help
check "overview lists adapt check" grep -q "^  adapt check " "$WORK/out"
run 2 "$CLOUDSM" adapt

# ---- every example checks ----
count=0
for f in "$EXAMPLES"/*.rules; do
  run 0 "$CLOUDSM" adapt check "$f"
  count=$((count + 1))
done
check "at least three examples" test "$count" -ge 3

# ---- the listing ----
run 0 "$CLOUDSM" adapt check "$EXAMPLES/traffic_profile.rules"
expect_eq "summary line" "$EXAMPLES/traffic_profile.rules: 2 parameters, 2 rules" "$(head -n 1 "$WORK/out")"
check "threshold listed" grep -qxF "param threshold = 2 GB/s (rate)" "$WORK/out"
check "the first rule, priority 10" grep -qxF "rule traffic_profile (line 8): priority 10, for 1m, cooldown 10m" "$WORK/out"
check "its condition" grep -qxF "  when avg(node.throughput over window) < threshold" "$WORK/out"
check "its action" grep -qxF '  then reroute(engine = "wftree", weights = learned(over 5m))' "$WORK/out"
expect_eq "evaluation order" "traffic_profile hot_receivers" \
  "$(sed -nE 's/^rule ([a-z_]+) .*/\1/p' "$WORK/out" | paste -sd ' ')"

# ---- --json and --set ----
run 0 "$CLOUDSM" adapt check "$EXAMPLES/traffic_profile.rules" --json --set threshold=1.5GB/s --set "window=1 m"
check "json: threshold overridden" grep -qF '"value": "1.5 GB/s"' "$WORK/out"
check "json: window overridden" grep -qF '"value": "1m"' "$WORK/out"
check "json: for_s" grep -qF '"for_s": 60' "$WORK/out"
check "json: cooldown_s" grep -qF '"cooldown_s": 600' "$WORK/out"
if command -v jq >/dev/null; then
  expect_eq "json parses: rule names" "traffic_profile,hot_receivers" "$(jq -r '[.rules[].name] | join(",")' "$WORK/out")"
  expect_eq "json: overridden flags" "true,true" "$(jq -r '[.params[].overridden] | map(tostring) | join(",")' "$WORK/out")"
fi
run 1 "$CLOUDSM" adapt check "$EXAMPLES/traffic_profile.rules" --set window=3GB/s
one_error "cloudsm adapt check: parameter window: '3GB/s' is a rate; window is a duration (declared at $EXAMPLES/traffic_profile.rules:6:7)"
run 1 "$CLOUDSM" adapt check "$EXAMPLES/traffic_profile.rules" --set window=0s
one_error "cloudsm adapt check: parameter window = 0s: $EXAMPLES/traffic_profile.rules:10:35: 'over' must be above zero, not 0s"
run 1 "$CLOUDSM" adapt check "$EXAMPLES/traffic_profile.rules" --set nope=1
one_error "cloudsm adapt check: $EXAMPLES/traffic_profile.rules: no parameter 'nope' (parameters: threshold, window)"
expect_eq "nothing listed on failure" 0 "$(wc -c <"$WORK/out")"

# ---- errors: one line, file:line:column, exit 1 ----
bad() { # bad NAME TEXT EXPECTED-MESSAGE (after "FILE:")
  printf '%s\n' "$2" >"$WORK/$1.rules"
  run 1 "$CLOUDSM" adapt check "$WORK/$1.rules"
  one_error "cloudsm adapt check: $WORK/$1.rules:$3"
  expect_eq "$1: nothing on stdout" 0 "$(wc -c <"$WORK/out")"
}
LOG='then log(message = "m") }'
bad syntax "rule r { when true foo $LOG" \
  "1:20: unexpected identifier 'foo', expecting 'for', 'cooldown', 'then' or an operator"
bad lexical "rule r { when true @ $LOG" "1:20: unexpected character '@'"
bad unterminated $'rule r {\n  when true\n  then log(message = "m)\n}' \
  "3:22: unterminated string (a string ends on its line)"
bad types "rule r { when 1s < 1 MB/s $LOG" "1:18: cannot compare a duration with a rate"
bad and_numbers "rule r { when 1 and 2 $LOG" "1:17: 'and' joins bools, not a number and a number"
bad metric "rule r { when avg(node.foo) > 1 $LOG" \
  "1:24: unknown metric 'foo' (metrics: xmit_bytes, rcv_bytes, xmit_pkts, rcv_pkts, xmit_wait, errors, throughput, utilisation, link_rate)"
bad bare_metric "rule r { when node.rcv_bytes > 1 MB/s $LOG" "1:15: aggregate it: avg(node.rcv_bytes)"
bad param $'param t = 1\nrule r { when avg(node.rcv_bytes) > threshold '"$LOG" \
  "2:37: unknown parameter 'threshold'"
bad action $'rule r {\n  when true\n  then lag(message = "m")\n}' \
  "3:8: unknown action 'lag' (actions: reroute, set_policy, migrate, set, log)"
bad argument 'rule r { when true then reroute(engine = "ftree", foo = 1) }' \
  "1:51: reroute() has no argument 'foo' (arguments: engine, weights, subtree, order)"
bad missing 'rule r { when true then reroute(weights = learned(over 1m)) }' \
  "1:25: reroute() needs argument 'engine' (a string)"
bad argument_type 'rule r { when true then reroute(engine = 3) }' "1:42: engine wants a string, not a number"
bad engine 'rule r { when true then reroute(engine = "wfree") }' \
  "1:42: unknown routing engine \"wfree\" (engines: ftree, noftree, wftree, pftree, vftree, slimupdate, mftree, minhop, updn)"
bad subtree_engine 'rule r { when true then reroute(engine = "minhop", subtree = top(node.rcv_bytes, 2)) }' \
  "1:42: engine \"minhop\" cannot re-route a sub-tree (engines that can: ftree, noftree, wftree, slimupdate)"
bad hold "rule r { when true for avg(node.rcv_bytes) $LOG" "1:24: 'for' is a constant: it cannot measure (avg())"
run 1 "$CLOUDSM" adapt check "$WORK/does-not-exist.rules"
check "a missing file is named" grep -q "does-not-exist.rules" "$WORK/err"

# ---- usage errors: exit 2 ----
run 2 "$CLOUDSM" adapt check
run 2 "$CLOUDSM" adapt check a.rules b.rules
run 2 "$CLOUDSM" adapt check "$EXAMPLES/traffic_profile.rules" --set threshold
run 2 "$CLOUDSM" adapt check "$EXAMPLES/traffic_profile.rules" --set =1
run 2 "$CLOUDSM" adapt check "$EXAMPLES/traffic_profile.rules" --bogus
run 2 "$CLOUDSM" adapt actions extra
run 2 "$CLOUDSM" adapt nonsense

# ---- the action registry ----
run 0 "$CLOUDSM" adapt actions
check "reroute listed" grep -q "^reroute: " "$WORK/out"
check "engine is a required string" grep -qE "^  engine +string +required " "$WORK/out"
run 0 "$CLOUDSM" adapt actions --json
if command -v jq >/dev/null; then
  expect_eq "json: the actions" "reroute,set_policy,migrate,set,log" "$(jq -r '[.actions[].name] | join(",")' "$WORK/out")"
fi
finish
