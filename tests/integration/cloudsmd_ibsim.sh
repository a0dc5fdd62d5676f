#!/usr/bin/env bash
# cloudsmd as the master SM of an ibsim fabric, checked with the standard tools only:
#   ibnetdiscover sees every node and port with the LIDs cloudsmd assigned (its guid2lid);
#   iblinkinfo/smpquery show every linked port ACTIVE;
#   dump_fts shows exactly the tables `cloudsm route` computes offline for the same LIDs;
#   ibtracert resolves paths between sampled CA pairs; sminfo finds cloudsmd as MASTER;
#   a restart on the unchanged fabric keeps every LID and sends no LFT block and no PortInfo.
source "$(dirname "$0")/../lib/common.sh"
require_oracles ibsim ibnetdiscover smpquery dump_fts ibtracert iblinkinfo sminfo
CLOUDSMD=${CLOUDSM_BUILD_DIR:?}/cloudsmd
cd "$WORK" || exit 1 # umad2sim writes its sysfs copy into the current directory

# PGFT(3; 8,6,4; 1,4,3; 1,2,2): 192 hosts, 52 switches, every switch-to-switch pair joined by
# two parallel cables (288 of the 480 links).
"$CLOUDSM" topo gen pgft "3;8,6,4;1,4,3;1,2,2" -o pgft.topo || fail "topo gen"
start_ibsim pgft.topo

sm() { # sm LOGNAME [cloudsmd options]: route once with cloudsmd into state/
  local log=$1; shift
  timeout -s KILL 120 env LD_PRELOAD="$UMAD2SIM" "$CLOUDSMD" -R ftree -o --state-dir state \
    --log-file "$log" --log-level debug "$@"
}
sm sm1.log
expect_eq "cloudsmd -o exit status" 0 $?
grep -E "took|subnet up|lfts:|activate:|discover:" sm1.log | sed 's/^/    /'
expect_eq "guid2lid entries (52 switches + 192 CA ports)" 244 "$(grep -c '^0x' state/guid2lid)"

# ibnetdiscover: the same fabric, and the LIDs it reports are the ones in our guid2lid.
sim ibnetdiscover >found.topo 2>ibnetdiscover.err || fail "ibnetdiscover"
"$CLOUDSM" topo diff pgft.topo found.topo >topo.diff
expect_eq "ibnetdiscover finds the generated fabric" 0 $?
"$CLOUDSM" topo lids found.topo -o seen.guid2lid || fail "topo lids"
check "LIDs seen by ibnetdiscover = cloudsmd's guid2lid" \
  cmp -s <(grep '^0x' state/guid2lid | sort) <(grep '^0x' seen.guid2lid | sort)
expect_eq "no port without a LID in ibnetdiscover's view" 0 \
  "$(grep -cE '# lid 0 |^switchguid.*lid 0 ' found.topo)"

# Port states: every linked port ACTIVE (iblinkinfo prints one line per port).
sim iblinkinfo >links.txt 2>/dev/null || fail "iblinkinfo"
# iblinkinfo lists every linked port, switch and CA ends alike: both ends of the 480 links.
expect_eq "ports LinkUp (both ends of 480 links)" 960 "$(grep -c "LinkUp" links.txt)"
expect_eq "LinkUp ports that are not Active" 0 "$(grep "LinkUp" links.txt | grep -vc "Active")"
for lid in $(grep '^0x' state/guid2lid | awk '{print $2}' | shuf -n 8 --random-source=pgft.topo); do
  state=$(sim smpquery portinfo $((lid)) 2>/dev/null | sed -n 's/^LinkState:\.*//p')
  expect_eq "smpquery portinfo LID $((lid)): LinkState" "Active" "$state"
done
sm_lid=$(grep -oE "SM LID [0-9]+" sm1.log | awk '{print $3}')

# LFTs: dump_fts (read back from the switches) = cloudsm route offline with the same LIDs.
sim dump_fts >fts.dump 2>dump_fts.err || fail "dump_fts"
"$CLOUDSM" route -R ftree pgft.topo --guid2lid state/guid2lid --no-fallback -o offline.dump ||
  fail "offline route"
"$CLOUDSM" lft diff offline.dump fts.dump --json >lft.json
expect_eq "LFT entries differing between dump_fts and the offline route" 0 \
  "$(json_get lft.json entries_changed)"
expect_eq "switches in dump_fts" 52 "$(json_get lft.json switches_new)"
"$CLOUDSM" lft check found.topo fts.dump --guid2lid state/guid2lid >check.txt
expect_eq "lft check on the programmed tables" 0 $?

# ibtracert between sampled CA pairs.
mapfile -t ca_lids < <(grep '^0x001' state/guid2lid | awk '{print $2}' | shuf -n 12 --random-source=state/guid2lid)
for ((i = 0; i + 1 < ${#ca_lids[@]}; i += 2)); do
  from=$((ca_lids[i])) to=$((ca_lids[i + 1]))
  sim ibtracert "$from" "$to" >trace.txt 2>&1
  expect_eq "ibtracert $from -> $to" 0 $?
  grep -q "To ca" trace.txt || fail "ibtracert $from -> $to does not reach a CA: $(cat trace.txt)"
done

# Restart on the unchanged fabric: same LIDs, nothing to program.
cp state/guid2lid guid2lid.first
sm sm2.log
expect_eq "restart: exit status" 0 $?
check "restart: same LIDs" cmp -s guid2lid.first state/guid2lid
expect_eq "restart: LFT blocks sent" 0 "$(sed -nE 's/.*lfts: [0-9]+ blocks read back, ([0-9]+) blocks sent.*/\1/p' sm2.log)"
expect_eq "restart: ports activated" 0 "$(sed -nE 's/.*activate: ([0-9]+) ports.*/\1/p' sm2.log)"
expect_eq "restart: LID phase SMPs" 0 "$(sed -nE 's/.*lids took [0-9.]+ ms, ([0-9]+) SMPs.*/\1/p' sm2.log)"

# Running as the master: sminfo (another SM's view) finds us MASTER; SIGTERM stops us cleanly.
LD_PRELOAD="$UMAD2SIM" "$CLOUDSMD" -R ftree --state-dir state --log-file sm3.log >/dev/null 2>&1 &
daemon=$!
for _ in $(seq 1 100); do grep -q "waiting for SIGTERM" sm3.log 2>/dev/null && break; sleep 0.1; done
info=$(SIM_HOST=H-0010000000000500 sim sminfo 2>&1)
check "sminfo sees cloudsmd as master ($info)" grep -q "SMINFO_MASTER" <<<"$info"
check "sminfo names cloudsmd's port" grep -q "sm lid $sm_lid sm guid 0x10000000000001" <<<"$info"
capmask=$(sim smpquery portinfo "$sm_lid" 2>/dev/null | sed -n '/^CapMask/,/^[A-Z]/p')
check "SM port advertises IsSM while cloudsmd runs" grep -q "IsSM" <<<"$capmask"
stop_daemon "$daemon"
expect_eq "daemon exit status after SIGTERM" 0 $?
check "daemon logged its stop" grep -q "stopping" sm3.log
finish
