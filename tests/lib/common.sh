# Shared by the shell tests (sourced). Provides: a scratch directory, fail/check helpers,
# and ibsim/OpenSM helpers for the integration tests.
#
# Environment (set by CTest): CLOUDSM = path of the cloudsm binary, CLOUDSM_TEST_DATA = tests/data.
# CLOUDSM_REQUIRE_ORACLES=1 (scripts/test sets it) turns "oracle not installed" from a skip
# (exit 77) into a failure.
set -uo pipefail

: "${CLOUDSM:?CLOUDSM must point at the cloudsm binary}"
TEST_NAME=$(basename "$0" .sh)
WORK=$(mktemp -d "/tmp/cloudsm-$TEST_NAME.XXXXXX")
SIM_PIDS=()
FAILURES=0
CHECKS=0

# Bounded stops (wait_exit, stop_daemon, forget_pid): no bare `wait` on a process under umad2sim.
source "$(dirname "${BASH_SOURCE[0]}")/stop_daemon.sh"

# At exit: whatever is still running is killed (SIGKILL, which the umad2sim exit hang cannot
# hold up) and not waited for, so that the cleanup itself cannot hang.
cleanup() {
  local pid
  for pid in "${SIM_PIDS[@]}"; do
    kill -9 "$pid" 2>/dev/null
  done
  if [[ $FAILURES -eq 0 ]]; then rm -rf "$WORK"; else echo "(kept $WORK)"; fi
}
trap cleanup EXIT

fail() {
  echo "FAIL: $*" >&2
  FAILURES=$((FAILURES + 1))
}

# check DESCRIPTION COMMAND...: run COMMAND, count a failure if it exits non-zero.
check() {
  local what=$1; shift
  CHECKS=$((CHECKS + 1))
  if "$@"; then echo "ok: $what"; else fail "$what"; fi
}

# expect_eq DESCRIPTION EXPECTED ACTUAL
expect_eq() {
  CHECKS=$((CHECKS + 1))
  if [[ "$2" == "$3" ]]; then echo "ok: $1 ($3)"; else fail "$1: expected '$2', got '$3'"; fi
}

# run EXPECTED_STATUS CMD...: run CMD with its stdout in $WORK/out and its stderr in $WORK/err;
# a failure if it exits with another status.
run() {
  local want=$1; shift
  "$@" >"$WORK/out" 2>"$WORK/err"
  local got=$?
  CHECKS=$((CHECKS + 1))
  if [[ $got -eq $want ]]; then echo "ok: exit $got: $*"; else fail "exit $got (want $want): $*"; cat "$WORK/err"; fi
}

# json_get FILE KEY: the number or string value of a top-level "KEY": in cloudsm's JSON output.
json_get() {
  sed -nE "s/^  \"$2\": \"?([^\",]*)\"?,?\$/\\1/p" "$1" | head -n 1
}

# one_error PATTERN: after run, stderr is one line matching PATTERN (grep -E): an error of exit 1.
one_error() {
  expect_eq "one line on stderr" 1 "$(wc -l <"$WORK/err")"
  check "error says: $1" grep -qE -- "$1" "$WORK/err"
}

# usage_error PATTERN: after run, stderr's first line matches PATTERN and the next points to
# --help: a usage error (exit 2).
usage_error() {
  check "usage error says: $1" grep -qE -- "$1" <(head -1 "$WORK/err")
  check "usage error points to --help" grep -q "^(see: cloudsm .* --help)$" "$WORK/err"
}

finish() {
  echo "$TEST_NAME: $((CHECKS - FAILURES)) passed, $FAILURES failed"
  [[ $FAILURES -eq 0 ]] && exit 0 || exit 1
}

# require_oracles CMD...: skip (77) or fail when a tool is missing.
require_oracles() {
  local missing=()
  for cmd in "$@"; do command -v "$cmd" >/dev/null || missing+=("$cmd"); done
  [[ -f "$UMAD2SIM" ]] || missing+=("$UMAD2SIM")
  if [[ ${#missing[@]} -gt 0 ]]; then
    if [[ "${CLOUDSM_REQUIRE_ORACLES:-0}" == 1 ]]; then
      echo "FAIL: oracles missing: ${missing[*]} (scripts/deps test installs them)" >&2
      exit 1
    fi
    echo "SKIP: oracles missing: ${missing[*]}"
    exit 77
  fi
}

UMAD2SIM=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so

# start_ibsim NETFILE [ibsim options]: start ibsim on a socket name unique to this test run and
# wait until a client can attach. Sets IBSIM_SOCKNAME for the clients run through `sim`.
# With IBSIM_CONSOLE=1 ibsim keeps its console, fed through a FIFO: see ibsim_cmd.
start_ibsim() {
  local net=$1; shift
  # Numbered by a count that never goes back, so that an ibsim started after stop_ibsim has a
  # socket and a log of its own (the earlier one's log is kept for a failure's evidence).
  local n=${IBSIM_STARTS:-0}
  IBSIM_STARTS=$((n + 1))
  export IBSIM_SOCKNAME="cs-$TEST_NAME-$$-$n"
  local log="$WORK/ibsim-$n.log"
  if [[ "${IBSIM_CONSOLE:-0}" == 1 ]]; then
    rm -f "$WORK/ibsim.console"
    mkfifo "$WORK/ibsim.console"
    ibsim -s "$@" "$net" <"$WORK/ibsim.console" >"$log" 2>&1 &
    exec 9>"$WORK/ibsim.console" # hold the FIFO open: ibsim would read EOF and quit
  else
    ibsim -s -n "$@" "$net" >"$log" 2>&1 &
  fi
  SIM_PIDS+=($!)
  local i
  for i in $(seq 1 100); do
    if grep -q "Network simulator ready" "$log" 2>/dev/null &&
       sim smpquery -D nodeinfo 0 >/dev/null 2>&1; then
      return 0
    fi
    if ! kill -0 "${SIM_PIDS[-1]}" 2>/dev/null; then
      cat "$log" >&2
      fail "ibsim exited while loading $net"
      finish
    fi
    sleep 0.2
  done
  fail "ibsim did not come up on $net"
  finish
}

# ibsim_cmd LINE: one console command (Unlink, Link, Error, ...) to the ibsim started with
# IBSIM_CONSOLE=1; waits a moment so that ibsim has run it before the next client starts.
ibsim_cmd() {
  echo "$*" >&9
  sleep 0.3
}

stop_ibsim() {
  stop_daemon "${SIM_PIDS[-1]}" KILL 5
  return 0 # killed as asked (a hang is counted as a failure by stop_daemon)
}

# wait_log FILE PATTERN COUNT [SECONDS]: until FILE holds COUNT lines matching PATTERN (grep -E),
# at most SECONDS (20); 1 if it never does.
wait_log() {
  local file=$1 pattern=$2 count=$3 tenths=$((${4:-20} * 10)) i
  for ((i = 0; i < tenths; i++)); do
    [[ $(grep -cE "$pattern" "$file" 2>/dev/null) -ge $count ]] && return 0
    sleep 0.1
  done
  return 1
}

# start_cloudsmd_daemon LOG [cloudsmd options]: cloudsmd as a daemon on the current ibsim, its log
# in LOG and its output in LOG.out; sets $daemon (killed at exit) and checks that it came up
# (serving within 10 s). CLOUDSMD_PRELOAD: a library preloaded after umad2sim (a bench shim).
start_cloudsmd_daemon() {
  local log=$1; shift
  LD_PRELOAD="$UMAD2SIM${CLOUDSMD_PRELOAD:+:$CLOUDSMD_PRELOAD}" "${CLOUDSM_BUILD_DIR:?}/cloudsmd" \
    "$@" --log-file "$log" >"$log.out" 2>&1 &
  daemon=$!
  SIM_PIDS+=("$daemon")
  wait_log "$log" "waiting for SIGTERM" 1 10
  check "cloudsmd is up ($log)" grep -q "waiting for SIGTERM" "$log"
}

# What the tests with several SMs read from one host, $OBSERVER (its node description):
#   observed_sm_state LID   the SMInfo state of the SM at LID as `sminfo` reads it ("none")
#   observed_lids FILE      every port's GUID and decimal LID, as ibnetdiscover finds them
#   lid_in GUID FILE        the LID FILE (observed_lids') gives the port GUID
observed_sm_state() {
  SIM_HOST=${OBSERVER:?} sim sminfo "$1" 2>/dev/null | grep -oE "SMINFO_[A-Z_]+" || echo none
}
observed_lids() {
  SIM_HOST=${OBSERVER:?} sim ibnetdiscover >"$WORK/found.topo" 2>/dev/null || fail "ibnetdiscover"
  "$CLOUDSM" topo lids "$WORK/found.topo" -o "$1" || fail "topo lids"
}
lid_in() { awk -v g="$1" '$1 == g {print $2 + 0}' "$2"; }

# compare_dirs OSM_DIR OURS_DIR [SKIP_GLOB]: every file of OSM_DIR (but names matching SKIP_GLOB)
# against the one of the same name in OURS_DIR; sets $compared and $differing, and shows the
# first lines of each difference.
compare_dirs() {
  local osm=$1 ours=$2 skip=${3:-} f name
  compared=0 differing=0
  for f in "$osm"/*; do
    name=$(basename "$f")
    # shellcheck disable=SC2053 # a glob on purpose
    [[ -n $skip && $name == $skip ]] && continue
    compared=$((compared + 1))
    if ! cmp -s "$f" "$ours/$name"; then
      differing=$((differing + 1))
      echo "--- $name differs (OpenSM <, cloudsmd >):"; diff "$f" "$ours/$name" | head -12
    fi
  done
}

# saquery_first_records: of saquery's PathRecord dumps on standard input, what ibsim lets a
# client see intact: the first two records and the GIDs of the third. umad2sim hands a client
# only the first MAD of an RMPP reply, and saquery reads garbage from its byte 224 on.
saquery_first_records() {
  awk '/PathRecord dump/ { n++ } n <= 2 || (n == 3 && /dump|service_id|gid/)'
}

# start_opensm_daemon DIR [opensm options]: OpenSM as the master SM of the current ibsim, its
# cache (guid2lid) and log in DIR; checks that it became master within 15 s (its standard output
# says so at once, its log file is buffered) and leaves it a second to bring the subnet up.
start_opensm_daemon() {
  local dir=$1; shift
  mkdir -p "$dir"
  OSM_CACHE_DIR=$dir OSM_TMP_DIR=$dir LD_PRELOAD="$UMAD2SIM" opensm -f "$dir/osm.log" "$@" \
    >"$dir/opensm.out" 2>&1 &
  SIM_PIDS+=($!)
  wait_log "$dir/opensm.out" "Entering MASTER state" 1 15
  check "OpenSM is up ($dir)" grep -q "Entering MASTER state" "$dir/opensm.out"
  sleep 1
}

# sim CMD...: run an infiniband client (or OpenSM, or a one-shot cloudsmd) against the current
# ibsim, for SIM_CLIENT_SECONDS (120) at most: a client hangs at exit in umad2sim as a daemon can
# (see stop_daemon.sh). timeout(1) ends it (TERM, then KILL 5 s later; no backtraces: a client's
# hang is rarer and its run repeatable) and the hang is a failure, said on standard error. Inside
# $(...) or a pipeline the count of failures is the subshell's: the message stays, and the
# caller's check of the output fails.
sim() {
  local secs=${SIM_CLIENT_SECONDS:-120} start=$SECONDS status
  timeout -k 5 "$secs" env LD_PRELOAD="$UMAD2SIM" "$@" # env: not timeout itself under umad2sim
  status=$?
  if ((status == 124 || (status == 137 && SECONDS - start >= secs))); then
    _stop_fail "$1 (a client under umad2sim) did not exit within $secs s; killed by timeout(1)"
  fi
  return "$status"
}

# run_opensm DIR ENGINE [opensm options]: route once with OpenSM into DIR (guid2lid and
# opensm-lfts.dump land there; an existing DIR/guid2lid is honoured).
run_opensm() {
  local dir=$1 engine=$2; shift 2
  mkdir -p "$dir"
  OSM_CACHE_DIR=$dir OSM_TMP_DIR=$dir timeout -s KILL 300 \
    env LD_PRELOAD=$UMAD2SIM opensm -o -R "$engine" -D 0x43 -f "$dir/osm.log" \
    --dump_files_dir "$dir" "$@" >"$dir/opensm.out" 2>&1
}
