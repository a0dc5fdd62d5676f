#!/usr/bin/env bash
# Two cloudsmd started at the same instant on two hosts of a fresh ibsim fabric: exactly one
# becomes master (issue 12). Each trial checks:
#   the loser exits 1 with the "another SM wins" line, having programmed nothing;
#   the winner is the one of higher precedence (priority, then lower port GUID): in odd trials
#   the higher-GUID host gets the higher priority;
#   sminfo from a third host and SMInfo of both SM ports: one MASTER, the winner;
#   every port's SM LID is the winner's LID, and ibnetdiscover sees one consistent assignment
#   (no duplicate LID, no port without one; the winner's guid2lid).
# Then two masters after all (one was frozen while the other started): the one of lower
# precedence finds the other at its next sweep and stops.
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

# decided LOG PID: this SM has decided (it serves as master, or it has exited).
decided() {
  grep -q "waiting for SIGTERM" "$1" 2>/dev/null || ! kill -0 "$2" 2>/dev/null
}

# sm_state LID: the SMInfo state of the SM at LID, as sminfo from the observer reads it.
sm_state() {
  SIM_HOST=$OBSERVER sim sminfo "$1" 2>/dev/null | grep -oE "SMINFO_[A-Z_]+" || echo none
}

printf 'sweep_interval 1\n' >sm.conf
first_come=0
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
    decided "a$trial/sm.log" "$pid_a" && decided "b$trial/sm.log" "$pid_b" && break
    sleep 0.1
  done
  alive=""
  kill -0 "$pid_a" 2>/dev/null && alive+=a
  kill -0 "$pid_b" 2>/dev/null && alive+=b
  # The rule picks `want` when the two saw each other. The other one may still win legitimately
  # when its sweep passed `want`'s port before `want` had claimed IsSM there (started at the
  # same instant, but scheduled first, and the fabric is swept in a millisecond): it saw no
  # other SM, claimed, and `want` then found a master (no handover yet). The logs prove that
  # case: the winner's claim says no other SM answered, the loser found it already master, and
  # the claim comes before the loser's look at it; anything else is a failure.
  other=$([[ $want == a ]] && echo b || echo a)
  other_guid=$([[ $other == a ]] && echo "$GUID_A" || echo "$GUID_B")
  if [[ $alive == "$other" ]] &&
     grep -q "master: no other SM takes precedence (0 other SMs answered)" "$other$trial/sm.log" &&
     grep -q "master, .*: it is already master" "$want$trial/sm.log"; then
    claimed=$(grep -m1 "master: no other SM" "$other$trial/sm.log" | cut -c1-24)
    seen=$(grep -m1 "SM on port $other_guid .*state master" "$want$trial/sm.log" | cut -c1-24)
    check "$t: $other claimed ($claimed) before $want saw it master ($seen)" \
      test -n "$seen" -a ! "$claimed" \> "$seen"
    want=$other
    first_come=$((first_come + 1))
  fi
  expect_eq "$t (priorities $prio_a/$prio_b): the one running cloudsmd" "$want" "$alive"
  lose=$([[ $want == a ]] && echo b || echo a)
  win_guid=$([[ $want == a ]] && echo "$GUID_A" || echo "$GUID_B")
  lose_pid=$([[ $lose == a ]] && echo "$pid_a" || echo "$pid_b")
  if ! kill -0 "$lose_pid" 2>/dev/null; then
    wait "$lose_pid"
    expect_eq "$t: the loser's exit status" 1 $?
  fi
  check "$t: the loser names the winner" \
    grep -q "another SM wins: port GUID $win_guid" "$lose$trial/sm.log"
  check "$t: the loser programmed nothing" bash -c "! grep -qE 'lids:|lfts:' $lose$trial/sm.log"

  # One consistent LID assignment: the winner's, as ibnetdiscover finds it.
  SIM_HOST=$OBSERVER sim ibnetdiscover >found.topo 2>/dev/null || fail "$t: ibnetdiscover"
  "$CLOUDSM" topo lids found.topo -o seen.guid2lid || fail "$t: topo lids"
  check "$t: LIDs seen = the winner's guid2lid" \
    cmp -s <(grep '^0x' "$want$trial/guid2lid" | sort) <(grep '^0x' seen.guid2lid | sort)
  expect_eq "$t: duplicate LIDs" "" "$(grep '^0x' seen.guid2lid | awk '{print $2}' | sort | uniq -d)"
  expect_eq "$t: ports without a LID" 0 "$(awk '$2 == 0' seen.guid2lid | wc -l)"

  # Every port's SM LID is the winner's LID; the winner is the one MASTER.
  win_lid=$(awk -v g="$win_guid" '$1 == g {print $2}' seen.guid2lid)
  lose_lid=$(awk -v g="$([[ $lose == a ]] && echo "$GUID_A" || echo "$GUID_B")" '$1 == g {print $2}' seen.guid2lid)
  sm_lids=$(for lid in $(grep '^0x' seen.guid2lid | awk '{print $2}'); do
    SIM_HOST=$OBSERVER sim smpquery portinfo "$lid" 2>/dev/null | sed -n 's/^SMLid:\.*//p'
  done | sort -u | tr '\n' ' ')
  expect_eq "$t: SM LIDs held by the ports" "$((win_lid)) " "$sm_lids"
  info=$(SIM_HOST=$OBSERVER sim sminfo 2>&1)
  check "$t: sminfo finds the winner master" \
    grep -qE "sm lid $((win_lid)) sm guid $(printf 0x%x "$win_guid"),.*SMINFO_MASTER" <<<"$info"
  expect_eq "$t: the winner's SMInfo state" SMINFO_MASTER "$(sm_state "$((win_lid))")"
  expect_eq "$t: the loser's SMInfo state" none "$(sm_state "$((lose_lid))")"

  win_pid=$([[ $want == a ]] && echo "$pid_a" || echo "$pid_b")
  kill "$pid_a" "$pid_b" 2>/dev/null
  wait "$win_pid"
  expect_eq "$t: the winner stops cleanly on SIGTERM" 0 $?
  wait "$pid_a" "$pid_b" 2>/dev/null
  expect_eq "$t: nothing on standard error (sanitizers)" "" "$(cat "a$trial/stderr" "b$trial/stderr")"
  SIM_PIDS=("${SIM_PIDS[@]:0:${#SIM_PIDS[@]}-2}")
  stop_ibsim
  if ((FAILURES)); then
    echo "--- a$trial/sm.log" && cat "a$trial/sm.log"
    echo "--- b$trial/sm.log" && cat "b$trial/sm.log"
    break
  fi
done
echo "precedence decided $((trial - first_come)) of $trial trials; in $first_come the first master stayed"

# Two masters after all, resolved during a sweep: A is master but frozen (SIGSTOP) when B, of
# higher priority, starts; B's SMInfo Gets to A time out (logged, ignored) and B claims. Thawed,
# A polls the SMs at its next sweep (B's PortInfo Sets raise a trap, or the light sweep period
# comes), finds a master of higher precedence and stops; B stays.
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
check "B became master next to a frozen A" grep -q "waiting for SIGTERM" sb/sm.log
for _ in $(seq 1 300); do kill -0 "$pid_a" 2>/dev/null || break; sleep 0.1; done
kill -KILL "$pid_a" 2>/dev/null # still running after 30 s: killed, and the status says so
wait "$pid_a"
expect_eq "A stops when it finds B master (exit status)" 1 $?
check "A names B and the rule" grep -q \
  "another SM wins: port GUID $GUID_B, priority 1, master, .*: two masters: higher priority" sa/sm.log
check "A leaves the fabric to B" grep -q "not master: stopping; the fabric is left to the winner" sa/sm.log
sleep 1.5 # B's light sweeps go on (one per second)
check "B keeps running" kill -0 "$pid_b"
SIM_HOST=$OBSERVER sim ibnetdiscover >found.topo 2>/dev/null || fail "ibnetdiscover"
"$CLOUDSM" topo lids found.topo -o seen.guid2lid || fail "topo lids"
b_lid=$(awk -v g="$GUID_B" '$1 == g {print $2}' seen.guid2lid)
info=$(SIM_HOST=$OBSERVER sim sminfo 2>&1)
check "sminfo finds B master" \
  grep -qE "sm lid $((b_lid)) sm guid $(printf 0x%x "$GUID_B"),.*SMINFO_MASTER" <<<"$info"
kill "$pid_b"
wait "$pid_b"
expect_eq "B stops cleanly on SIGTERM" 0 $?
expect_eq "nothing on standard error (sanitizers)" "" "$(cat sa/stderr sb/stderr)"
finish
