#!/usr/bin/env bash
# cloudsmd on a misbehaving ibsim fabric (ibsim console commands Unlink and Error): every run
# ends (no hang), says what went wrong in one log line per problem, and leaves a consistent
# fabric: the tables on the switches connect every pair of CAs that the fabric still connects
# (cloudsm lft check on dump_fts, against what ibnetdiscover sees).
source "$(dirname "$0")/../lib/common.sh"
require_oracles ibsim ibnetdiscover dump_fts
CLOUDSMD=${CLOUDSM_BUILD_DIR:?}/cloudsmd
cd "$WORK" || exit 1

# 4-ary-3-tree: 64 hosts, 48 switches (leaves S-0020000100000000.., middles ..0002.., roots
# ..0003..); every switch link is single, so a pulled cable makes the tree irregular.
"$CLOUDSM" topo gen kary 4 3 -o tree.topo || fail "topo gen"
IBSIM_CONSOLE=1 start_ibsim tree.topo

sm() { # sm LOG [options]: one bring-up, bounded in time; prints its exit status
  local log=$1; shift
  timeout -s KILL 60 env LD_PRELOAD="$UMAD2SIM" "$CLOUDSMD" -R ftree -o --state-dir state \
    --log-file "$log" --timeout 50 --retries 2 "$@"
  echo $?
}

consistent() { # consistent NAME: the programmed tables connect every CA pair ibnetdiscover sees
  sim ibnetdiscover >"$1.topo" 2>/dev/null || { fail "$1: ibnetdiscover"; return; }
  sim dump_fts >"$1.dump" 2>/dev/null || { fail "$1: dump_fts"; return; }
  "$CLOUDSM" lft check "$1.topo" "$1.dump" >"$1.check"
  expect_eq "$1: lft check on dump_fts (every CA pair connected, no loops)" 0 $?
}

# 1. A leaf that drops every packet (Error 100 on all its ports): it and its 4 hosts are missing;
#    the warnings name the directed route; the rest comes up.
ibsim_cmd 'Error "S-0020000100000005" 100'
expect_eq "dead leaf: exit status" 0 "$(sm dead-leaf.log)"
check "dead leaf: a warning names the DR path of the silent probe" \
  grep -qE "WARN .*no answer at 0,1(,[0-9]+)+" dead-leaf.log
check "dead leaf: the sweep counted problems" grep -qE "discover: 107 nodes.*[1-9][0-9]* problem" dead-leaf.log
grep -E "WARN" dead-leaf.log | head -3 | sed 's/^/    /'
consistent dead-leaf
ibsim_cmd 'Error "S-0020000100000005" 0'

# 2. A pulled switch cable before the sweep: the link is gone, ftree falls back or routes
#    around, and every CA pair is still connected.
ibsim_cmd 'Unlink "S-0020000200000000"[5]'
expect_eq "pulled cable: exit status" 0 "$(sm pulled.log)"
check "pulled cable: 191 of 192 links found" grep -q "discover: 112 nodes.*, 191 links" pulled.log
consistent pulled
ibsim_cmd 'Link "S-0020000200000000"[5] "S-0020000300000000"[1]'

# 3. Packets lost at random while the SM works (Error 20 on a middle switch): retries and
#    timeouts, a clear account at the end, and a second run that finishes the job.
ibsim_cmd 'Error "S-0020000200000003" 20'
status=$(sm lossy.log)
check "lossy: the run ends with 0 or 1 ($status)" test "$status" -le 1
check "lossy: retries are counted" grep -qE "subnet up: [0-9]+ SMPs sent \([1-9][0-9]* retries" lossy.log
ibsim_cmd 'Error "S-0020000200000003" 0'
expect_eq "after the loss: a clean run" 0 "$(sm clean.log)"
consistent clean

# 4. A cable pulled while the sweep runs (window 1 to stretch it): whatever the timing, the run
#    ends, and the next run sees the fabric as it now is.
(sleep 0.05; ibsim_cmd 'Unlink "S-0020000100000002"[5]') &
unlinker=$!
status=$(sm midsweep.log --max-outstanding 1)
wait_exit $unlinker 10
check "mid-sweep unlink: the run ends with 0 or 1 ($status)" test "$status" -le 1
expect_eq "after the unlink: a clean run" 0 "$(sm after.log)"
check "after the unlink: one link fewer" grep -q ", 191 links" after.log
consistent after
finish
