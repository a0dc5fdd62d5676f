#!/usr/bin/env bash
# cloudsmd -R noftree with a node order (node_order_file / --node-order) on ibsim: dump_fts shows
# exactly the tables `cloudsm route -R noftree --order` computes offline for the same LIDs, which
# are not ftree's; a bad order file stops cloudsmd with file:line before the port is opened; a
# running cloudsmd whose node_order_file changes routes again on SIGHUP.
source "$(dirname "$0")/../lib/common.sh"
require_oracles ibsim dump_fts
CLOUDSMD=${CLOUDSM_BUILD_DIR:?}/cloudsmd
cd "$WORK" || exit 1 # umad2sim writes its sysfs copy into the current directory

# Paper III's Fig. 5/6: four leaves of four hosts under four top switches; order e, i, m.
"$CLOUDSM" topo gen xgft "2;4,4;1,4" -o fig5.topo || fail "topo gen"
port_guid() { sed -nE "/# \"$1\"\$/{n;s/^\[1\]\(([0-9a-f]+)\).*/0x\1/p}" fig5.topo; }
{ echo "# e, i, m"; port_guid host-4; port_guid host-8; port_guid host-12; } >eim.order
expect_eq "three GUIDs in the order" 3 "$(grep -c '^0x' eim.order)"

printf '0x10\nnot-a-guid\n' >bad.order
timeout -s KILL 60 "$CLOUDSMD" -o --state-dir bad-state -R noftree --node-order bad.order \
  2>bad.err
expect_eq "a bad node order file: exit status" 1 $?
check "names file:line" grep -q "bad.order:2: " bad.err

start_ibsim fig5.topo
timeout -s KILL 120 env LD_PRELOAD="$UMAD2SIM" "$CLOUDSMD" -o --state-dir state \
  --log-file sm.log -R noftree --node-order eim.order
expect_eq "cloudsmd -o -R noftree exit status" 0 $?
check "routed with noftree" grep -q "route: noftree tables" sm.log

sim dump_fts >fts.dump 2>dump_fts.err || fail "dump_fts"
"$CLOUDSM" route -R noftree --order eim.order fig5.topo --guid2lid state/guid2lid --no-fallback \
  -o noftree.dump || fail "offline noftree"
"$CLOUDSM" route -R ftree fig5.topo --guid2lid state/guid2lid --no-fallback -o ftree.dump ||
  fail "offline ftree"
"$CLOUDSM" lft diff noftree.dump fts.dump --json >same.json
# Every switch on both sides (a switch missing from one would cost no differing entry).
expect_eq "switches in dump_fts" 8 "$(json_get same.json switches_new)"
expect_eq "switches only offline" 0 "$(json_get same.json switches_removed)"
expect_eq "entries differing between dump_fts and the offline noftree" 0 \
  "$(json_get same.json entries_changed)"
"$CLOUDSM" lft diff ftree.dump fts.dump --json >other.json
check "and the order made them differ from ftree's" test "$(json_get other.json entries_changed)" -gt 0

# SIGHUP: the daemon reads node_order_file again, and a new order routes again.
printf 'routing_engine noftree\nnode_order_file %s\nsweep_interval 30\n' "$WORK/eim.order" >sm.conf
start_cloudsmd_daemon daemon.log -c sm.conf --state-dir state
{ echo "# m, i, e: the other way round"; port_guid host-12; port_guid host-8; port_guid host-4; } \
  >eim.order
kill -HUP "$daemon"
wait_log daemon.log "SIGHUP: routed with noftree" 1 20
check "SIGHUP: the changed file is named" \
  grep -q "SIGHUP: configuration read again; changed: nothing; files changed: node_order_file" \
  daemon.log
check "SIGHUP: routed again" grep -q "SIGHUP: routed with noftree" daemon.log
sim dump_fts >hup.dump 2>/dev/null || fail "dump_fts after SIGHUP"
"$CLOUDSM" route -R noftree --order eim.order fig5.topo --guid2lid state/guid2lid --no-fallback \
  -o mie.dump || fail "offline noftree, new order"
"$CLOUDSM" lft diff mie.dump hup.dump --json >hup.json
expect_eq "SIGHUP: switches in dump_fts" 8 "$(json_get hup.json switches_new)"
expect_eq "SIGHUP: switches only offline" 0 "$(json_get hup.json switches_removed)"
expect_eq "SIGHUP: dump_fts = offline noftree with the new order" 0 \
  "$(json_get hup.json entries_changed)"
"$CLOUDSM" lft diff noftree.dump hup.dump --json >moved.json
check "SIGHUP: the tables did change" test "$(json_get moved.json entries_changed)" -gt 0

finish
