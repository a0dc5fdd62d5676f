#!/usr/bin/env bash
# Two cloudsmd started at the same instant on two hosts of a fresh ibsim fabric: exactly one
# ends master, the one of higher precedence (priority, then lower port GUID; in odd trials the
# higher-GUID host gets the higher priority), the other standby (issue 12, then the standby
# state machine). Each trial checks:
#   the loser names the winner: it found it ("another SM wins") and stands by, having programmed
#   nothing; or it claimed first (its sweep passed the winner's port before the winner set
#   IsSM) and handed mastership over when it found the winner (HANDOVER, logged by both);
#   sminfo from a third host and SMInfo of both SM ports: MASTER at the winner, STANDBY at the
#   loser;
#   every port's SM LID is the winner's LID, and ibnetdiscover sees one consistent assignment
#   (no duplicate LID, no port without one; the winner's guid2lid).
# Then two masters after all (one was frozen while the other started): the one of lower
# precedence finds the other at its next sweep, hands over and stands by.
# MASTER_TRIALS (default 20) sets the number of trials.
source "$(dirname "$0")/../lib/common.sh"
require_oracles ibsim ibnetdiscover smpquery sminfo
CLOUDSMD=${CLOUDSM_BUILD_DIR:?}/cloudsmd
cd "$WORK" || exit 1 # umad2sim writes its sysfs copy into the current directory
TRIALS=${MASTER_TRIALS:-20}

# 2-ary-2-tree: 4 hosts, 4 switches. SMs on host 0 and host 3, the observer on host 1.
"$CLOUDSM" topo gen kary 2 2 -o k2n2.topo || fail "topo gen"
HOST_A=H-0010000000000000 GUID_A=0x0010000000000001
HOST_B=H-0010000000000300 GUID_B=0x0010000000000301
OBSERVER=H-0010000000000100

# start_sm NAME HOST PRIORITY: a daemon on HOST's port, its state and log under NAME.
start_sm() {
  mkdir -p "$1"
  SIM_HOST=$2 LD_PRELOAD="$UMAD2SIM" "$CLOUDSMD" -R ftree -p "$3" -c sm.conf --state-dir "$1" \
    --log-file "$1/sm.log" >/dev/null 2>"$1/stderr" &
}

# decided LOG: this SM serves (as master or standby).
decided() {
  grep -q "waiting for SIGTERM" "$1" 2>/dev/null
}

printf 'sweep_interval 1\nsminfo_polling_timeout 500\n' >sm.conf
handed=0
for trial in $(seq 1 "$TRIALS"); do
  t="trial $trial"
  if ((trial % 2)); then prio_a=0 prio_b=1 want=b; else prio_a=0 prio_b=0 want=a; fi
  start_ibsim k2n2.topo
  rm -rf "a$trial" "b$trial"
  # The same instant: both fork from one subshell with nothing between them.
  start_sm "a$trial" "$HOST_A" "$prio_a"
  pid_a=$!
  start_sm "b$trial" "$HOST_B" "$prio_b"
  pid_b=$!
  SIM_PIDS+=("$pid_a" "$pid_b")
  for _ in $(seq 1 600); do
    decided "a$trial/sm.log" && decided "b$trial/sm.log" && break
    sleep 0.1
  done
  lose=$([[ $want == a ]] && echo b || echo a)
  win_guid=$([[ $want == a ]] && echo "$GUID_A" || echo "$GUID_B")
  lose_guid=$([[ $lose == a ]] && echo "$GUID_A" || echo "$GUID_B")
  # Settled: the observer's SM is the winner, master (a handover takes a sweep or two).
  for _ in $(seq 1 100); do
    SIM_HOST=$OBSERVER sim sminfo 2>/dev/null |
      grep -qE "sm guid $(printf 0x%x "$win_guid"),.*SMINFO_MASTER" && break
    sleep 0.1
  done
  check "$t: both SMs run" kill -0 "$pid_a" "$pid_b"
  if grep -q "handing mastership over: port GUID $win_guid" "$lose$trial/sm.log"; then
    # The loser claimed first: it saw no other SM, and handed over once it found the winner.
    check "$t: $lose claimed alone" \
      grep -q "master: no other SM takes precedence (0 other SMs answered)" "$lose$trial/sm.log"
    check "$t: $want took the HANDOVER" grep -q "HANDOVER received" "$want$trial/sm.log"
    handed=$((handed + 1))
  else
    check "$t: the loser names the winner" \
      grep -q "another SM wins: port GUID $win_guid" "$lose$trial/sm.log"
    check "$t: the loser programmed nothing" bash -c "! grep -qE 'lids:|lfts:' $lose$trial/sm.log"
  fi
  check "$t: the loser stands by, polling the winner" \
    grep -q "standby: polling the master $win_guid" "$lose$trial/sm.log"

  # One consistent LID assignment: the winner's, as ibnetdiscover finds it.
  observed_lids seen.guid2lid
  check "$t: LIDs seen = the winner's guid2lid" \
    cmp -s <(grep '^0x' "$want$trial/guid2lid" | sort) <(grep '^0x' seen.guid2lid | sort)
  expect_eq "$t: duplicate LIDs" "" "$(grep '^0x' seen.guid2lid | awk '{print $2}' | sort | uniq -d)"
  expect_eq "$t: ports without a LID" 0 "$(awk '$2 == 0' seen.guid2lid | wc -l)"

  # Every port's SM LID is the winner's LID; the winner is master, the loser standby.
  win_lid=$(awk -v g="$win_guid" '$1 == g {print $2}' seen.guid2lid)
  lose_lid=$(awk -v g="$lose_guid" '$1 == g {print $2}' seen.guid2lid)
  sm_lids=$(for lid in $(grep '^0x' seen.guid2lid | awk '{print $2}'); do
    SIM_HOST=$OBSERVER sim smpquery portinfo "$lid" 2>/dev/null | sed -n 's/^SMLid:\.*//p'
  done | sort -u | tr '\n' ' ')
  expect_eq "$t: SM LIDs held by the ports" "$((win_lid)) " "$sm_lids"
  expect_eq "$t: the winner's SMInfo state" SMINFO_MASTER "$(observed_sm_state "$((win_lid))")"
  expect_eq "$t: the loser's SMInfo state" SMINFO_STANDBY "$(observed_sm_state "$((lose_lid))")"

  kill "$pid_a" "$pid_b" 2>/dev/null
  wait_exit "$pid_a" 10 "of SIGTERM"
  expect_eq "$t: A stops cleanly on SIGTERM" 0 $?
  wait_exit "$pid_b" 10 "of SIGTERM"
  expect_eq "$t: B stops cleanly on SIGTERM" 0 $?
  expect_eq "$t: nothing on standard error (sanitizers)" "" "$(cat "a$trial/stderr" "b$trial/stderr")"
  stop_ibsim
  if ((FAILURES)); then
    echo "--- a$trial/sm.log" && cat "a$trial/sm.log"
    echo "--- b$trial/sm.log" && cat "b$trial/sm.log"
    break
  fi
done
echo "precedence decided at once in $((trial - handed)) of $trial trials; by HANDOVER in $handed"

# Two masters after all, resolved during a sweep: A is master but frozen (SIGSTOP) when B, of
# higher priority, starts; B's SMInfo Gets to A time out (logged, ignored) and B claims. Thawed,
# A polls the SMs at its next sweep (B's PortInfo Sets raise a trap, or the light sweep period
# comes), finds a master of higher precedence, hands over to it and stands by; B stays.
start_ibsim k2n2.topo
rm -rf sa sb
start_sm sa "$HOST_A" 0
pid_a=$!
SIM_PIDS+=("$pid_a")
for _ in $(seq 1 300); do grep -q "waiting for SIGTERM" sa/sm.log 2>/dev/null && break; sleep 0.1; done
kill -STOP "$pid_a"
start_sm sb "$HOST_B" 1
pid_b=$!
SIM_PIDS+=("$pid_b")
for _ in $(seq 1 300); do grep -q "waiting for SIGTERM" sb/sm.log 2>/dev/null && break; sleep 0.1; done
kill -CONT "$pid_a"
check "B became master next to a frozen A" grep -q "master SM on port $GUID_B" sb/sm.log
wait_log sa/sm.log "standby: polling the master $GUID_B" 1 30
check "A hands over to B, naming the rule" grep -q \
  "handing mastership over: port GUID $GUID_B, priority 1, master, .*: two masters: higher priority" sa/sm.log
check "A stands by, polling B" grep -q "standby: polling the master $GUID_B" sa/sm.log
sleep 1.5 # B's light sweeps go on (one per second)
check "A keeps running (standby)" kill -0 "$pid_a"
check "B keeps running" kill -0 "$pid_b"
observed_lids seen.guid2lid
b_lid=$(awk -v g="$GUID_B" '$1 == g {print $2}' seen.guid2lid)
info=$(SIM_HOST=$OBSERVER sim sminfo 2>&1)
check "sminfo finds B master" \
  grep -qE "sm lid $((b_lid)) sm guid $(printf 0x%x "$GUID_B"),.*SMINFO_MASTER" <<<"$info"
kill "$pid_a" "$pid_b"
wait_exit "$pid_a" 10 "of SIGTERM"
expect_eq "A stops cleanly on SIGTERM" 0 $?
wait_exit "$pid_b" 10 "of SIGTERM"
expect_eq "B stops cleanly on SIGTERM" 0 $?
expect_eq "nothing on standard error (sanitizers)" "" "$(cat sa/stderr sb/stderr)"
finish
