#!/usr/bin/env bash
# tests/lib/stop_daemon.sh itself: stop_daemon and wait_exit return a process's exit status; a
# process that does not exit within the bound (one that ignores SIGTERM) is killed, reaped and
# counted as a failure, with status 124, within the bound; a crash (SIGSEGV) is a failure too.
source "$(dirname "$0")/../lib/common.sh"
cd "$WORK" || exit 1

# expect_failures N DESCRIPTION: the helper counted N failures since $failures_before; they are
# the behaviour under test here, so they are taken back off the count.
expect_failures() {
  expect_eq "$2: failures counted by the helper" "$1" "$((FAILURES - failures_before))"
  FAILURES=$failures_before
}

# A process that exits on SIGTERM: 143, at once.
sleep 100 &
pid=$!
SIM_PIDS+=("$pid")
sleep 0.3 # exec'd: a SIGTERM sent while bash's child has not yet exec'd sleep can be lost
SECONDS=0
stop_daemon "$pid"
expect_eq "SIGTERM to sleep: its status" 143 $?
check "... within a second ($SECONDS s)" test "$SECONDS" -le 1
expect_eq "... dropped from SIM_PIDS" "" "${SIM_PIDS[*]}"

# One that handles SIGTERM and exits 3: its own status comes back.
bash -c 'trap "exit 3" TERM; while :; do sleep 0.1; done' &
pid=$!
sleep 0.3 # its trap set
stop_daemon "$pid" TERM 5
expect_eq "a handler's exit status" 3 $?

# wait_exit on a process that ends by itself: its status, no signal sent.
bash -c 'sleep 0.5; exit 7' &
wait_exit $! 5
expect_eq "wait_exit: the status of a process that ends by itself" 7 $?

# One that ignores SIGTERM (bash execs sleep, which keeps the ignored disposition): 124 after the bound (2 s), a failure with the evidence, and gone.
bash -c 'trap "" TERM; sleep 100' &
pid=$!
SIM_PIDS+=("$pid")
sleep 0.3
failures_before=$FAILURES
SECONDS=0
stop_daemon "$pid" TERM 2 2>stop.err
status=$?
elapsed=$SECONDS
cat stop.err
expect_failures 1 "SIGTERM ignored"
expect_eq "SIGTERM ignored: status 124" 124 "$status"
# The bound, then the evidence (gdb takes a second or two to attach) and the kill.
check "... returned after the bound, soon ($elapsed s)" test "$elapsed" -ge 2 -a "$elapsed" -le 12
check "... the process is gone" bash -c "! kill -0 $pid 2>/dev/null"
check "... and reaped (no zombie)" test ! -e "/proc/$pid"
check "... the message says what and why" \
  grep -qE "FAIL: sleep \\(pid $pid\\) did not exit within 2 s of SIGTERM; backtraces in $WORK/hang-sleep-$pid.txt" stop.err
check "... the evidence file holds the kernel's view" grep -q "^# task $pid: sleep" "hang-sleep-$pid.txt"
if command -v gdb >/dev/null; then
  check "... and gdb's backtraces" grep -qE "^#0 " "hang-sleep-$pid.txt"
fi
expect_eq "... dropped from SIM_PIDS" "" "${SIM_PIDS[*]}"

# wait_exit's bound on a process nobody signals.
sleep 100 &
pid=$!
failures_before=$FAILURES
wait_exit "$pid" 1 2>/dev/null
expect_eq "wait_exit on a process that stays: 124" 124 $?
expect_failures 1 "wait_exit on a process that stays"
check "... killed" test ! -e "/proc/$pid"

# A crash is a failure even where the caller ignores the status.
bash -c 'trap "kill -SEGV \$\$" TERM; while :; do sleep 0.1; done' &
pid=$!
sleep 0.3
failures_before=$FAILURES
stop_daemon "$pid" 2>segv.err
expect_eq "SIGSEGV on SIGTERM: its status" 139 $?
expect_failures 1 "SIGSEGV on SIGTERM"
check "... named" grep -q "bash (pid $pid) died of SIGSEGV (after being sent SIGTERM)" segv.err

# sim: a client that does not exit is ended by timeout(1), and that is a failure.
failures_before=$FAILURES
SECONDS=0
UMAD2SIM= SIM_CLIENT_SECONDS=1 sim bash -c 'trap "" TERM; sleep 100' 2>sim.err
status=$?
elapsed=$SECONDS
expect_failures 1 "sim: a client that ignores SIGTERM"
expect_eq "... killed after the TERM and the 5 s grace (137)" 137 "$status"
check "... within the bound ($elapsed s)" test "$elapsed" -le 8
check "... said so" grep -q "bash (a client under umad2sim) did not exit within 1 s" sim.err
UMAD2SIM= sim sh -c 'exit 3'
expect_eq "sim: a client's own status" 3 $?
finish
