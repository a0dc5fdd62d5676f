#!/usr/bin/env bash
# `cloudsm sm ...` as an operator meets it, against the real control-socket server with a stub
# handler (tests/unit/test_sm_control --serve), no fabric needed: --help, usage errors (exit 2,
# before connecting), a daemon that is not running (exit 1 and a hint), replies ok and error,
# --json, -o, --state-dir and --socket, the socket's mode. The same commands against cloudsmd on
# ibsim are the integration tests' business.
source "$(dirname "$0")/../lib/common.sh"

: "${CLOUDSM_BUILD_DIR:?CLOUDSM_BUILD_DIR must point at the build directory}"
STUB=$CLOUDSM_BUILD_DIR/tests/test_sm_control
[[ -x $STUB ]] || { CHECKS=$((CHECKS + 1)); fail "no stub server at $STUB"; finish; }
cd "$WORK" || exit 1

run() { # run EXPECTED_STATUS CMD...: capture stdout/stderr in $WORK/out, $WORK/err
  local want=$1; shift
  "$@" >"$WORK/out" 2>"$WORK/err"
  local got=$?
  CHECKS=$((CHECKS + 1))
  if [[ $got -eq $want ]]; then echo "ok: exit $got: $*"; else fail "exit $got (want $want): $*"; cat "$WORK/err"; fi
}

# A usage error: exit 2, "cloudsm sm NAME: ..." and the hint, nothing on stdout.
usage_error() { # usage_error PATTERN SUBCOMMAND ARGS...
  local pattern=$1 sub=$2; shift 2
  run 2 "$CLOUDSM" sm "$sub" --socket "$WORK/none.sock" "$@"
  check "'sm $sub $*': says '$pattern'" grep -qF -- "cloudsm sm $sub: $pattern" "$WORK/err"
  check "'sm $sub $*': hint to --help" grep -qx "(see: cloudsm sm $sub --help)" "$WORK/err"
  expect_eq "'sm $sub $*': nothing on stdout" 0 "$(wc -c <"$WORK/out")"
}

# --help teaches every subcommand; `cloudsm sm` alone lists them.
run 2 "$CLOUDSM" sm
cp "$WORK/err" "$WORK/group.txt"
for sub in status topology lfts reroute log-level sweep priority resweep querylid portstatus lidbalance; do
  check "'cloudsm sm' lists $sub" grep -qE "^  $sub +[a-z]" "$WORK/group.txt"
  run 0 "$CLOUDSM" sm "$sub" --help
  check "sm $sub --help: usage line" grep -q "^usage: cloudsm sm $sub" "$WORK/out"
  check "sm $sub --help: example" grep -q "^  cloudsm sm $sub" "$WORK/out"
  for opt in --socket --state-dir --config --json --output --timeout; do
    check "sm $sub --help lists $opt" grep -qE -- "(^|[ ,])$opt([ ,]|$)" "$WORK/out"
  done
  check "sm $sub --help: exit codes" grep -q "0 ok, 1 cloudsmd answered an error or is not running, 2 bad usage" "$WORK/out"
done
check "reroute --help names the engines" grep -q "^  noftree  NoFTree" <("$CLOUDSM" sm reroute --help)
run 0 "$CLOUDSM" help sm log-level
check "cloudsm help sm log-level" grep -q "^usage: cloudsm sm log-level LEVEL" "$WORK/out"

# Usage errors are caught before connecting (the socket does not exist: exit 2, not 1).
usage_error "reroute wants 1 argument: reroute ENGINE" reroute
usage_error "unknown routing engine 'dfsssp' (cloudsm has: ftree, noftree, " reroute dfsssp
usage_error "unknown or repeated option 'minhop': reroute ENGINE" reroute ftree minhop
usage_error "unknown log level 'loud' (error, warn, info, debug)" log-level loud
usage_error "status takes no arguments ('now' is one too many)" status now
usage_error "unknown option '--verbose'" status --verbose
usage_error "option '--timeout' needs a value" status --timeout
usage_error "--timeout wants seconds, 0 to 86400, not 'soon'" status --timeout soon
usage_error "give one of --socket, --state-dir and --config" status --state-dir "$WORK"

# Not running: exit 1 with the path and a hint.
run 1 "$CLOUDSM" sm status --socket "$WORK/none.sock"
check "no daemon: names the socket and asks" grep -qx "cloudsm sm status: cannot connect to $WORK/none.sock: no such file (is cloudsmd running?)" "$WORK/err"
run 1 "$CLOUDSM" sm sweep -d "$WORK/nostate"
check "--state-dir: the socket in it" grep -qx "cloudsm sm sweep: cannot connect to $WORK/nostate/cloudsmd.sock: no such file (is cloudsmd running?)" "$WORK/err"
# -c FILE: the state directory is the configuration's state_dir, read by cloudsmd's parser.
printf 'qos TRUE\nstate_dir %s/confstate # here\n' "$WORK" >"$WORK/sm.conf"
run 1 "$CLOUDSM" sm status -c "$WORK/sm.conf"
check "-c: the socket in the file's state_dir" grep -qx "cloudsm sm status: cannot connect to $WORK/confstate/cloudsmd.sock: no such file (is cloudsmd running?)" "$WORK/err"
printf 'sm_priority 3\n' >"$WORK/nodir.conf"
run 1 "$CLOUDSM" sm status --config "$WORK/nodir.conf"
check "-c without state_dir: the default" grep -qx "cloudsm sm status: cannot connect to /var/lib/cloudsm/cloudsmd.sock: no such file (is cloudsmd running?)" "$WORK/err"
printf 'sm_priority 16\n' >"$WORK/bad.conf"
run 1 "$CLOUDSM" sm status -c "$WORK/bad.conf"
check "-c with a bad file: its file:line" grep -qx "cloudsm sm status: $WORK/bad.conf:1: sm_priority: 16 is out of range 0..15" "$WORK/err"
run 1 "$CLOUDSM" sm events -c "$WORK/sm.conf"
check "sm events -c: the store in the file's state_dir" grep -q "$WORK/confstate/monitor.sqlite" "$WORK/err"
echo "not a socket" >"$WORK/file.sock"
run 1 "$CLOUDSM" sm status --socket "$WORK/file.sock"
check "a file that is no socket: refused" grep -q "cannot connect to $WORK/file.sock: connection refused (is cloudsmd running?" "$WORK/err"
run 1 "$CLOUDSM" sm status -d "/$(printf 'd%.0s' {1..120})"
check "a state dir too long for a socket" grep -q "too long for a unix socket (at most 107 bytes)" "$WORK/err"

# A live server with the stub handler. It serves this many requests, then exits.
REQUESTS=11
mkdir -m 700 "$WORK/state"
"$STUB" --serve "$WORK/state/cloudsmd.sock" "$REQUESTS" >"$WORK/stub.log" 2>&1 &
STUB_PID=$!
SIM_PIDS+=("$STUB_PID") # killed on exit if the test fails early
for _ in $(seq 100); do [[ -S $WORK/state/cloudsmd.sock ]] && break; sleep 0.05; done
check "the socket exists" test -S "$WORK/state/cloudsmd.sock"
expect_eq "the socket's mode" 600 "$(stat -c %a "$WORK/state/cloudsmd.sock")"
expect_eq "the socket's owner" "$(id -u)" "$(stat -c %u "$WORK/state/cloudsmd.sock")"

run 0 "$CLOUDSM" sm status -d "$WORK/state"                                      # 1
expect_eq "status: the body" "state       master|sweeps      3" "$(paste -sd'|' "$WORK/out")"
expect_eq "status: nothing on stderr" 0 "$(wc -c <"$WORK/err")"
run 0 "$CLOUDSM" sm status --json --state-dir "$WORK/state"                      # 2
expect_eq "status --json: state" master "$(json_get "$WORK/out" state)"
expect_eq "status --json: sweeps" 3 "$(json_get "$WORK/out" sweeps)"
run 0 "$CLOUDSM" sm topology --socket "$WORK/state/cloudsmd.sock"                # 3
check "topology: the body" grep -qx "nodes 76 (28 switches, 48 CAs)" "$WORK/out"
run 0 "$CLOUDSM" sm reroute minhop -d "$WORK/state"                              # 4
check "reroute: the body" grep -qx "12 blocks sent" "$WORK/out"
run 0 "$CLOUDSM" sm reroute minhop --json -d "$WORK/state"                       # 5
expect_eq "reroute --json: blocks" 12 "$(json_get "$WORK/out" blocks_sent)"
run 1 "$CLOUDSM" sm reroute updn -d "$WORK/state"                                # 6
check "daemon error: one line, its message" grep -qx "cloudsm sm reroute: stub: updn is not suitable here" "$WORK/err"
expect_eq "daemon error: nothing on stdout" 0 "$(wc -c <"$WORK/out")"
run 1 "$CLOUDSM" sm reroute updn -d "$WORK/state" -o "$WORK/reroute.out"         # 7
check "daemon error: -o FILE not created" test ! -e "$WORK/reroute.out"
run 0 "$CLOUDSM" sm lfts -d "$WORK/state" -o "$WORK/live.lfts"                   # 8
expect_eq "lfts -o: nothing on stdout" 0 "$(wc -c <"$WORK/out")"
check "lfts -o: the dump in the file" grep -q "^0x0001 001 : (Channel Adapter portguid 0x0000000000000001: 'h1')\$" "$WORK/live.lfts"
run 0 "$CLOUDSM" sm log-level WARNING -d "$WORK/state"                           # 9
check "log-level: sent as one spelling" grep -qx "log level warn" "$WORK/out"
run 0 "$CLOUDSM" sm sweep -d "$WORK/state"                                       # 10
expect_eq "sweep: an empty body" 0 "$(wc -c <"$WORK/out")"
run 0 "$CLOUDSM" sm status -d "$WORK/state/" --timeout 5                         # 11
check "a trailing slash on the state dir" grep -q "^state" "$WORK/out"

wait_exit "$STUB_PID" 10
expect_eq "the stub served $REQUESTS requests and exited" 0 "$?"
check "the stub removed its socket" test ! -e "$WORK/state/cloudsmd.sock"
finish
