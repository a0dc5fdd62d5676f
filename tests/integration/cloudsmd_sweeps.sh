#!/usr/bin/env bash
# cloudsmd running as master on ibsim while cables are pulled and put back (ibsim console
# Unlink/Link): within one sweep period the tables are repaired (every CA pair connected, by
# `cloudsm lft check` on dump_fts), the LFT SMPs sent equal the blocks that changed (by
# `cloudsm lft diff` of dump_fts before and after), and putting the cable back restores the
# original tables exactly. ibsim sends a trap for every Unlink/Link, so the repair here is
# trap-driven; the light sweep's own detection (PortStateChange) is covered by test_sm_program.
source "$(dirname "$0")/../lib/common.sh"
require_oracles ibsim ibnetdiscover dump_fts iblinkinfo
cd "$WORK" || exit 1

# 4-ary-3-tree: 64 hosts, 48 switches, single cables; S-0020000200000000 port 5 goes to root
# S-0020000300000000 port 1.
"$CLOUDSM" topo gen kary 4 3 -o tree.topo || fail "topo gen"
IBSIM_CONSOLE=1 start_ibsim tree.topo
printf 'sweep_interval 2\n' >sm.conf
start_cloudsmd_daemon sm.log -R ftree -c sm.conf --state-dir state
sim dump_fts >before.dump 2>/dev/null || fail "dump_fts"

# wait_sweeps N: until the log holds N "sweep done" lines.
wait_sweeps() { wait_log sm.log "sweep done" "$1"; }

# lft_blocks_of_sweep N: the LFT blocks the N-th re-sweep sent.
lft_blocks_of_sweep() {
  grep -E "lfts: [0-9]+ blocks read back" sm.log | sed -n "$(($1 + 1))p" |
    sed -E 's/.*read back, ([0-9]+) blocks sent.*/\1/'
}

cut_and_restore() { # cut_and_restore NAME FIRST_SWEEP
  local name=$1 n=$2
  ibsim_cmd 'Unlink "S-0020000200000000"[5]'
  check "$name: repaired within one sweep period" wait_sweeps "$n"
  sim ibnetdiscover >"$name-cut.topo" 2>/dev/null
  sim dump_fts >"$name-cut.dump" 2>/dev/null
  "$CLOUDSM" lft check "$name-cut.topo" "$name-cut.dump" >"$name-cut.check"
  expect_eq "$name: lft check after the cut (every CA pair connected)" 0 $?
  "$CLOUDSM" lft diff before.dump "$name-cut.dump" --json >"$name-cut.json"
  expect_eq "$name: LFT SMPs sent = blocks changed" "$(json_get "$name-cut.json" blocks_changed)" \
    "$(lft_blocks_of_sweep "$n")"
  ibsim_cmd 'Link "S-0020000200000000"[5] "S-0020000300000000"[1]'
  check "$name: re-swept after the cable came back" wait_sweeps $((n + 1))
  sleep 0.5
  sim dump_fts >"$name-back.dump" 2>/dev/null
  "$CLOUDSM" lft diff before.dump "$name-back.dump" --json >"$name-back.json"
  expect_eq "$name: the original tables are back (entries differing)" 0 \
    "$(json_get "$name-back.json" entries_changed)"
  expect_eq "$name: every linked port Active again" 384 "$(sim iblinkinfo 2>/dev/null | grep -c Active)"
}

cut_and_restore traps 1
check "the repair was triggered by ibsim's trap" grep -q "trap received" sm.log

# The control socket (cloudsm sm): status, the LFTs it holds, re-routing with another engine and
# back, all checked against what the switches hold (dump_fts).
expect_eq "control socket mode" "srw------- root" "$(stat -c '%A %U' state/cloudsmd.sock)"
"$CLOUDSM" sm status -d state --json >status.json
expect_eq "sm status: state" master "$(json_get status.json state)"
expect_eq "sm status: switches" 48 "$(json_get status.json switches)"
expect_eq "sm status: engine" ftree "$(json_get status.json engine)"
"$CLOUDSM" sm lfts -d state -o held.lfts
expect_eq "sm lfts (exit status)" 0 $?
sim dump_fts >now.dump 2>/dev/null
"$CLOUDSM" lft diff held.lfts now.dump --json >held.json
expect_eq "sm lfts = dump_fts (entries differing)" 0 "$(json_get held.json entries_changed)"
"$CLOUDSM" sm reroute minhop -d state --json >reroute.json
expect_eq "sm reroute minhop: engine" minhop "$(json_get reroute.json engine)"
sim dump_fts >minhop.dump 2>/dev/null
"$CLOUDSM" route -R minhop tree.topo --guid2lid state/guid2lid -o offline-minhop.lfts
"$CLOUDSM" lft diff offline-minhop.lfts minhop.dump --json >minhop.json
expect_eq "after reroute minhop: dump_fts = offline minhop (entries differing)" 0 \
  "$(json_get minhop.json entries_changed)"
"$CLOUDSM" lft diff now.dump minhop.dump --json >moved.json
expect_eq "reroute minhop: LFT blocks sent = blocks changed" \
  "$(json_get moved.json blocks_changed)" "$(json_get reroute.json blocks_sent)"
"$CLOUDSM" sm reroute ftree -d state >/dev/null
sim dump_fts >ftree-again.dump 2>/dev/null
"$CLOUDSM" lft diff before.dump ftree-again.dump --json >again.json
expect_eq "reroute ftree: the original tables are back" 0 "$(json_get again.json entries_changed)"
"$CLOUDSM" sm reroute nosuch -d state 2>/dev/null
expect_eq "sm reroute with an unknown engine is a usage error" 2 $?

# A quiet fabric: the periodic light sweeps (every 2 s) find nothing and start no heavy sweep.
sweeps=$(grep -c "sweep done" sm.log)
sleep 4.5
expect_eq "quiet fabric: light sweeps run but no heavy sweep" "$sweeps" "$(grep -c "sweep done" sm.log)"
stop_daemon "$daemon"
expect_eq "cloudsmd stops cleanly" 0 $?
finish
