#!/usr/bin/env bash
# cloudsmd when its own link goes away (issue 12, item 1), on ibsim with sweep_interval 2:
#  - the SM host's cable pulled (ibsim Unlink) and put back (ReLink);
#  - the leaf next to the SM dropping every packet (Error 100) for 7 s, then healthy (Error 0).
# Meanwhile the SM keeps its last fabric view: guid2lid keeps every entry, `cloudsm sm status`
# shows the whole fabric and says the SM port is down. Once the link is back the fabric is back
# by itself (no manual sweep) within one sweep interval plus a margin: status clean with every
# node, the SM port ACTIVE, the switches' tables exactly as before (dump_fts).
source "$(dirname "$0")/../lib/common.sh"
require_oracles ibsim dump_fts smpquery
cd "$WORK" || exit 1

# 2-ary-3-tree: 8 hosts, 12 switches. The SM attaches to H-0010000000000000, on leaf
# S-0020000100000000 port 1.
"$CLOUDSM" topo gen kary 2 3 -o tree.topo || fail "topo gen"
IBSIM_CONSOLE=1 start_ibsim tree.topo
printf 'sweep_interval 2\ntransaction_timeout 100\ntransaction_retries 1\n' >sm.conf
start_cloudsmd_daemon sm.log -R ftree -c sm.conf -d state
sim dump_fts >before.dump 2>/dev/null || fail "dump_fts"
entries() { grep -c '^0x' state/guid2lid; }
expect_eq "guid2lid: 20 entries" 20 "$(entries)"

status() { "$CLOUDSM" sm status -d state --json >status.json 2>/dev/null; }
sm_port_state() { sim smpquery -D portinfo 0 1 2>/dev/null | sed -n 's/^LinkState:\.*//p'; }

# wait_for SECONDS CMD...: until CMD succeeds (polled every 0.1 s); false at the deadline.
wait_for() {
  local deadline=$(($(date +%s%N) / 1000000 + $1 * 1000)); shift
  while (($(date +%s%N) / 1000000 < deadline)); do
    "$@" && return 0
    sleep 0.1
  done
  return 1
}
port_down_logged() { [[ $(grep -c "SM port down" sm.log) -gt $1 ]]; }
# fabric_back: status says every node, the SM port up, a clean last sweep.
fabric_back() {
  status &&
    [[ $(json_get status.json nodes) == 20 && $(json_get status.json sm_port_down) == false &&
       $(json_get status.json last_sweep_failures) == 0 ]]
}

# lost_and_back NAME CUT RESTORE: cut the SM off, hold it for 7 s, restore, check recovery.
lost_and_back() {
  local name=$1 cut=$2 restore=$3 downs
  downs=$(grep -c "SM port down" sm.log)
  ibsim_cmd "$cut"
  check "$name: the SM notices (WARN within 2 sweep intervals)" wait_for 6 port_down_logged "$downs"
  grep "SM port down" sm.log | tail -1 >"$name.warn"
  check "$name: it keeps the last fabric view" grep -q "keeping the last fabric view (20 nodes)" \
    "$name.warn"
  local min=20 i
  for i in $(seq 1 14); do # 7 s, through at least 3 sweep intervals
    [[ $(entries) -lt $min ]] && min=$(entries)
    sleep 0.5
  done
  expect_eq "$name: guid2lid kept every entry while cut off (fewest seen)" 20 "$min"
  status
  expect_eq "$name: sm status: the last view (nodes)" 20 "$(json_get status.json nodes)"
  expect_eq "$name: sm status: SM port down" true "$(json_get status.json sm_port_down)"
  "$CLOUDSM" sm status -d state >status.txt
  check "$name: sm status text says since when" grep -q "^SM port *down since" status.txt
  local t0 t1
  t0=$(date +%s%N)
  ibsim_cmd "$restore"
  check "$name: the fabric is back by itself within 2 s + 6 s margin" wait_for 8 fabric_back
  t1=$(date +%s%N)
  echo "$name: fabric back $(((t1 - t0) / 1000000)) ms after the link came back"
  expect_eq "$name: SM port ACTIVE" Active "$(sm_port_state)"
  expect_eq "$name: guid2lid entries" 20 "$(entries)"
  sim dump_fts >"$name.dump" 2>/dev/null
  "$CLOUDSM" lft diff before.dump "$name.dump" --json >"$name.json"
  expect_eq "$name: the switches' tables as before (entries differing)" 0 \
    "$(json_get "$name.json" entries_changed)"
}

lost_and_back unlink 'Unlink "H-0010000000000000"' 'ReLink "H-0010000000000000"'
check "unlink: the SM port was found down" grep -q "SM port down: keeping" unlink.warn
check "unlink: the poll saw the port come back" grep -q "SM port up again" sm.log
lost_and_back error 'Error "S-0020000100000000" 100' 'Error "S-0020000100000000" 0'
check "error: the neighbour was found silent" grep -q "its neighbour does not answer" error.warn

stop_daemon "$daemon"
expect_eq "cloudsmd stops cleanly" 0 $?
finish
