# Bounded waits for the processes the shell tests and benchmarks start (sourced by common.sh and
# by bench/ scripts). Provides wait_exit, stop_daemon and forget_pid.
#
# Why: a process under ibsim's libumad2sim.so can hang forever at exit. umad2sim's atexit
# handler pthread_joins its own reader thread, and that thread sits blocked on a mutex inside
# umad2sim (seen in gdb); the same race once ended in a SIGSEGV at exit. A bare `wait PID` then
# held the test until ctest's timeout, and nobody learned why. Here every wait has a bound; a
# process that outlives it has its threads' backtraces kept, is killed (SIGKILL) and reaped, and
# the test fails saying so.
#
# A hang at exit is a failure even when the daemon had logged a clean stop: the process did not
# end, and what hangs runs in its address space, whoever wrote it. One exception: an oracle
# (anything but cloudsmd) hung in libumad2sim's exit handler after its main() returned is killed
# and noted, since its work was done and the fault is the simulator's. When the backtraces show that
# main() has returned and the process is inside exit()'s handlers (umad2sim's), the failure is
# labelled so ("hung in its exit handlers after main() returned"): a simulator fault told apart
# from a hang of ours, not hidden. Likewise a death by SIGSEGV, SIGABRT, SIGBUS, SIGILL or SIGFPE
# (one the caller did not send) is a failure wherever it happens, also when the caller does not
# look at the status (OpenSM stopped between scenarios, say).
#
# Failures go through fail() when the sourcing script has one (common.sh), else to standard
# error. The evidence goes to $WORK when set (kept: the test fails), else to $TMPDIR or /tmp.

STOP_TIMEOUT_STATUS=124 # as timeout(1)

# forget_pid PID: drop PID from SIM_PIDS (the processes cleanup kills), when there is one; a
# process stopped and reaped must not be killed at exit, its PID may be another's by then.
forget_pid() {
  declare -p SIM_PIDS >/dev/null 2>&1 || return 0
  local keep=() pid
  for pid in "${SIM_PIDS[@]}"; do [[ $pid == "$1" ]] || keep+=("$pid"); done
  SIM_PIDS=("${keep[@]}")
}

_stop_fail() {
  if declare -F fail >/dev/null; then fail "$*"; else echo "FAIL: $*" >&2; fi
}

# _stop_exited PID: PID is gone or a zombie (kill -0 succeeds on a zombie not yet reaped).
_stop_exited() {
  kill -0 "$1" 2>/dev/null || return 0
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
  stat=${stat##*) } # after "(comm)", which may hold spaces
  [[ ${stat%% *} == Z ]]
}

# _stop_evidence PID FILE: what PID's threads are doing, into FILE: gdb's backtraces when gdb is
# installed (itself bounded: gdb can hang on a wedged process), the kernel's view always.
_stop_evidence() {
  local pid=$1 file=$2 task
  {
    echo "# $(date -Is) pid $pid: $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)"
    grep -E '^(Name|State|Threads|SigBlk|SigIgn|SigCgt):' "/proc/$pid/status" 2>/dev/null
    for task in /proc/"$pid"/task/*; do
      echo "# task ${task##*/}: $(cat "$task/comm" 2>/dev/null) wchan $(cat "$task/wchan" 2>/dev/null)"
      cat "$task/stack" 2>/dev/null
    done
    if command -v gdb >/dev/null; then
      echo "# gdb -p $pid -batch -ex 'thread apply all bt'"
      timeout -s KILL 60 gdb -p "$pid" -batch -ex 'thread apply all bt' 2>&1
    else
      echo "# gdb is not installed: no backtraces"
    fi
  } >"$file" 2>&1
}

# wait_exit PID [SECONDS] [WHY]: wait at most SECONDS (10) for PID, a child of this shell, to
# exit; returns its exit status. If it has not exited by then: backtraces into a file (see
# _stop_evidence), SIGKILL, reaped, a failure "NAME (pid PID) did not exit within SECONDS s WHY;
# backtraces in FILE", and status 124. WHY says what it should exit of ("of SIGTERM").
wait_exit() {
  local pid=$1 secs=${2:-10} why=${3:-} name=${STOP_NAME:-} tenths i status
  # Read now, unless the caller read it before its signal: a dead process has no name left.
  [[ -n $name ]] || name=$(cat "/proc/$pid/comm" 2>/dev/null) || name=process
  tenths=$((secs * 10))
  for ((i = 0; i < tenths; i++)); do
    _stop_exited "$pid" && break
    sleep 0.1
  done
  if _stop_exited "$pid"; then
    wait "$pid" 2>/dev/null
    status=$?
    forget_pid "$pid"
    local crash=
    case $status in
      132) crash=SIGILL ;; 134) crash=SIGABRT ;; 135) crash=SIGBUS ;; 136) crash=SIGFPE ;;
      139) crash=SIGSEGV ;;
    esac
    if [[ -n $crash && ${STOP_SENT_SIGNAL:-} != "$crash" ]]; then
      _stop_fail "$name (pid $pid) died of $crash${why:+ (after being sent ${why#of })}"
    fi
    return "$status"
  fi

  local dir=${WORK:-${TMPDIR:-/tmp}} file
  file=$dir/hang-$name-$pid.txt
  _stop_evidence "$pid" "$file"
  local label="did not exit within $secs s${why:+ $why}"
  # main() gone from every stack, exit()'s handlers on one: the hang is after our code ended.
  if grep -qE '__run_exit_handlers|in (__GI_)?exit \(' "$file" &&
     ! grep -qE '^#[0-9]+ +(0x[0-9a-f]+ in )?main \(' "$file"; then
    label="$label: hung in its exit handlers after main() returned"
    if grep -q umad2sim "$file"; then label="$label (libumad2sim's atexit hang)"; fi
  fi
  kill -9 "$pid" 2>/dev/null
  for ((i = 0; i < 50; i++)); do _stop_exited "$pid" && break; sleep 0.1; done
  wait "$pid" 2>/dev/null
  forget_pid "$pid"
  # An oracle (OpenSM, a diag, a test client) wedged by libumad2sim's own exit handler after its
  # main() returned has done its work: noted, not failed (it is the simulator's fault, and no
  # test is about it). cloudsmd leaves through _exit and never runs that handler: for it this
  # stays a failure.
  if [[ $name != cloudsmd && $label == *"libumad2sim's atexit hang"* ]]; then
    echo "note: $name (pid $pid) $label; killed; backtraces in $file"
    return 0
  fi
  _stop_fail "$name (pid $pid) $label; backtraces in $file"
  return "$STOP_TIMEOUT_STATUS"
}

# stop_daemon PID [SIGNAL] [SECONDS]: send SIGNAL (TERM) to PID, a child of this shell, and
# wait_exit it for SECONDS (10): its exit status, or 124 (a failure counted) if it hung.
stop_daemon() {
  local pid=$1 sig=${2:-TERM} secs=${3:-10} name
  sig=${sig#SIG}
  name=$(cat "/proc/$pid/comm" 2>/dev/null) || name=process
  kill -s "$sig" "$pid" 2>/dev/null
  STOP_NAME=$name STOP_SENT_SIGNAL=SIG$sig wait_exit "$pid" "$secs" "of SIG$sig"
}
