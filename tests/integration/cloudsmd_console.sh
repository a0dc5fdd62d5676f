#!/usr/bin/env bash
# OpenSM's console commands on cloudsmd's control socket (`cloudsm sm priority|resweep|sweep
# on|off|querylid|portstatus|lidbalance`), against OpenSM 3.3.23's console (`console loopback`)
# on the same ibsim fabric and against the diags:
#   portstatus (all, switch, ca): OpenSM's text, line for line (but the time it took);
#   querylid of every LID: OpenSM's GUID, node description, type and port count (cloudsmd runs
#     with OpenSM's guid2lid, so a LID names the same port in both); the state, width and
#     neighbour of the SM host's port as smpquery reads them;
#   lidbalance: OpenSM's `switchbalance verbose` (both route with ftree from the same LIDs, so
#     their tables are the same), and per switch and port the CA LIDs dump_fts shows routed there;
#   priority: `sminfo` sees the priority set; OpenSM's console shows its configured one alike;
#   sweep off: no periodic light sweeps (sweep_interval 1) until sweep on; resweep light and
#     heavy: one light sweep that finds nothing, one heavy sweep.
source "$(dirname "$0")/../lib/common.sh"
require_oracles ibsim opensm sminfo smpquery dump_fts python3
CONSOLE=$(cd "$(dirname "$0")/../lib" && pwd)/opensm_console.py
cd "$WORK" || exit 1

# 4-ary-2-tree: 16 hosts, 8 switches (every spine has 4 unused ports: some ports are down).
"$CLOUDSM" topo gen kary 4 2 -o tree.topo || fail "topo gen"

# ---- OpenSM and its console: the reference ----
start_ibsim tree.topo
port=$((20000 + RANDOM % 20000))
printf 'console loopback\nconsole_port %s\nforce_log_flush TRUE\n' "$port" >osm.conf
start_opensm_daemon osm -F "$WORK/osm.conf" -R ftree
lids=$(while read -r _ lid _; do printf '%d\n' "$lid"; done < <(grep '^0x' osm/guid2lid) | sort -n)
check "OpenSM gave LIDs ($(echo $lids | wc -w))" test "$(echo $lids | wc -w)" -eq 24
cmds=("portstatus" "portstatus switch" "portstatus ca" "switchbalance verbose" "priority")
for lid in $lids; do cmds+=("querylid $lid"); done
python3 "$CONSOLE" "$port" "${cmds[@]}" >osm.console || fail "OpenSM's console (port $port)"
check "OpenSM's console answered portstatus" grep -q '^"ALL" port status:' osm.console
stop_daemon "${SIM_PIDS[-1]}" # OpenSM
stop_ibsim
# osm_answer CMD: what OpenSM's console answered to CMD.
osm_answer() { awk -v c="@@@ $1" '$0 == c { on = 1; next } /^@@@ / { on = 0 } on' osm.console; }

# ---- cloudsmd with OpenSM's LIDs ----
start_ibsim tree.topo
mkdir -p state && cp osm/guid2lid state/guid2lid
printf 'sweep_interval 1\n' >sm.conf
start_cloudsmd_daemon sm.log -R ftree -c sm.conf --state-dir state --log-level debug
sm() { "$CLOUDSM" sm "$@" -d state; }
no_time() { sed -E 's/ in [0-9]+ us$//'; } # the one line that may differ: how long it took

for scope in "" switch ca; do
  sm portstatus $scope >"ps-$scope.txt" 2>&1
  expect_eq "portstatus $scope: exit status" 0 $?
  check "portstatus ${scope:-(all)}: OpenSM's text" \
    cmp -s <(no_time <"ps-$scope.txt") <(osm_answer "portstatus${scope:+ $scope}" | no_time)
done
sm portstatus --json >ps.json
expect_eq "portstatus --json: ports" "$(sed -nE 's/^ *([0-9]+) port\(s\) scanned.*/\1/p' ps-.txt)" \
  "$(json_get ps.json ports)"
expect_eq "portstatus --json: active" "$(sed -nE 's/^ *([0-9]+) active$/\1/p' ps-.txt)" \
  "$(json_get ps.json active)"
check "portstatus: some ports down (the spines' unused ones)" test "$(json_get ps.json down)" -gt 0

# querylid: every LID against OpenSM's answer for it.
querylid_lines() { grep -E '^   (GUID|Node Desc|Node Type|Num Ports) '; }
bad=0
for lid in $lids; do
  sm querylid "$lid" >"q-$lid.txt" 2>&1 || bad=$((bad + 1))
  [[ $(querylid_lines <"q-$lid.txt" | wc -l) -eq 4 ]] || bad=$((bad + 1))
  cmp -s <(querylid_lines <"q-$lid.txt") <(osm_answer "querylid $lid" | querylid_lines) ||
    { bad=$((bad + 1)); echo "querylid $lid differs from OpenSM's:"; cat "q-$lid.txt"; }
done
expect_eq "querylid: every LID ($(echo "$lids" | wc -w)) as OpenSM's console" 0 "$bad"
# The SM host's port against the diags: its GUIDs, state and width, and its neighbour.
host_lid=$(sim smpquery -D portinfo 0 1 | sed -nE 's/^Lid:\.*([0-9]+)$/\1/p')
sm querylid "$host_lid" --json >q.json
expect_eq "querylid $host_lid: node GUID (smpquery nodeinfo)" \
  "$(sim smpquery nodeinfo "$host_lid" | sed -nE 's/^Guid:\.*(0x[0-9a-f]+)$/\1/p')" \
  "$(json_get q.json node_guid)"
expect_eq "querylid $host_lid: port GUID (smpquery nodeinfo)" \
  "$(sim smpquery nodeinfo "$host_lid" | sed -nE 's/^PortGuid:\.*(0x[0-9a-f]+)$/\1/p')" \
  "$(json_get q.json port_guid)"
check "querylid $host_lid: port 1 ACTIVE as smpquery says" grep -q '"state": "ACTIVE"' q.json
sim smpquery portinfo "$host_lid" 1 | grep -q "^LinkState:\.*Active" ||
  fail "smpquery: the host port is not Active"
nb_guid=$(sim smpquery -D nodeinfo 0,1 | sed -nE 's/^Guid:\.*(0x[0-9a-f]+)$/\1/p')
nb_port=$(sim smpquery -D nodeinfo 0,1 | sed -nE 's/^LocalPort:\.*([0-9]+)$/\1/p')
check "querylid $host_lid: the neighbour is $nb_guid port $nb_port (smpquery -D 0,1)" \
  grep -qE "^   Port 1 .* -> $nb_guid port $nb_port " "q-$host_lid.txt"
run 1 "$CLOUDSM" sm querylid 999 -d state
check "querylid of a LID no port holds: an error" grep -qx "cloudsm sm querylid: no port has LID 999" "$WORK/err"

# lidbalance: OpenSM's switchbalance verbose (switch blocks sorted: OpenSM walks its own map).
blocks() { awk '/Switch: / { key = $0 } { print key "\t" $0 }' | sort -s -t$'\t' -k1,1 | cut -f2; }
sm lidbalance >lb.txt
check "lidbalance: OpenSM's switchbalance verbose" \
  cmp -s <(blocks <lb.txt) <(osm_answer "switchbalance verbose" | blocks)
check "lidbalance: a line per switch (8)" test "$(grep -c 'Switch: ' lb.txt)" -eq 8
# ... and every port's CA LIDs as dump_fts shows them.
sim dump_fts >fts.dump 2>/dev/null || fail "dump_fts"
awk '/^Unicast lids/ { for (i = 1; i <= NF; i++) if ($i == "guid") sw = $(i + 1) }
     /Channel Adapter portguid/ { n[sw " " $2 + 0]++ }
     END { for (k in n) print k, n[k] }' fts.dump | sort >fts.balance
sm lidbalance --json >lb.json
python3 - lb.json >lb.balance <<'PY'
import json, sys
for s in json.load(open(sys.argv[1]))["switches"]:
    for p in s["ports"]:
        if p["lids"]:
            print(s["node_guid"], p["port"], p["lids"])
PY
sort -o lb.balance lb.balance
check "lidbalance --json: CA LIDs per switch port as dump_fts ($(wc -l <fts.balance) ports)" \
  cmp -s lb.balance fts.balance
expect_eq "lidbalance --json: no switch unbalanced (ftree)" 0 "$(json_get lb.json unbalanced)"
leaf=$(awk 'NR == 1 { print $1 }' fts.balance)
sm lidbalance "$leaf" --json >lb1.json
check "lidbalance GUID: that switch alone" test "$(grep -c '"node_guid"' lb1.json)" -eq 1
run 1 "$CLOUDSM" sm lidbalance 0x1234 -d state
check "lidbalance of no switch: an error" grep -q "no switch with node GUID 0x0000000000001234" "$WORK/err"

# priority: what SMInfo says (sminfo), and OpenSM's console at its default alike.
check "OpenSM's console: priority 0" grep -qx "Current sm-priority is 0" <(osm_answer priority)
expect_eq "priority: the configured one" "SM priority 0" "$(sm priority)"
sm priority 9 --json >prio.json
expect_eq "priority 9: the old one in the answer" 0 "$(json_get prio.json old)"
check "sminfo: priority 9" grep -q "priority 9 " <(sim sminfo)
expect_eq "priority: now 9" "SM priority 9" "$(sm priority)"
check "priority: logged" grep -q "SM priority 9 from now on (control socket; was 0)" sm.log
sm status --json >status.json
expect_eq "status: priority 9" 9 "$(json_get status.json priority)"
check "status (text): priority 9" grep -q "^state .*, priority 9$" <(sm status)

# sweep off: no periodic light sweeps (every second otherwise) until sweep on.
sm sweep off --json >off.json
check "sweep off: they were on" grep -q '"was": true' off.json
before=$(json_get off.json light_sweeps)
sm status --json >status.json
check "status: light sweeps off" grep -q '"light_sweeps": false' status.json
check "status (text): light sweeps off" grep -q "^light sweeps    off (sweep off)" <(sm status)
sleep 3
sm resweep light --json >light.json
expect_eq "sweep off: 3 s later only the light sweep asked for ran" $((before + 1)) \
  "$(json_get light.json light_sweeps)"
expect_eq "resweep light: a quiet fabric, no change" 0 "$(json_get light.json switches_changed)"
check "resweep light: no heavy sweep" grep -q '"heavy_sweep": false' light.json
sm sweep on --json >on.json
sleep 3
sm sweep on --json >on2.json
check "sweep on: periodic light sweeps again ($(json_get on.json light_sweeps) -> $(json_get on2.json light_sweeps))" \
  test "$(json_get on2.json light_sweeps)" -ge $(($(json_get on.json light_sweeps) + 2))
heavy=$(json_get light.json heavy_sweeps)
sm resweep heavy --json >heavy.json
expect_eq "resweep heavy: one heavy sweep" $((heavy + 1)) "$(json_get heavy.json heavy_sweeps)"
expect_eq "resweep heavy: no failures" 0 "$(json_get heavy.json failures)"
check "after the resweeps: still master (sminfo)" grep -q "state 3 SMINFO_MASTER" <(sim sminfo)
run 2 "$CLOUDSM" sm resweep medium -d state
usage_error "'medium': resweep light\|heavy"
check "cloudsmd is still running" kill -0 "$daemon"
finish
