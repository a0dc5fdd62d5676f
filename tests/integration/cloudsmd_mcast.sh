#!/usr/bin/env bash
# Multicast in cloudsmd against OpenSM 3.3.23 on the same ibsim fabric (a 4-ary-3-tree, OpenSM's
# LIDs, ftree): the same partitions.conf (IPoIB broadcast groups with their flags, two scopes)
# and the same joins and leaves, sent from several hosts with the mc_join client, must give the
# same SA answers (every join's and leave's reply, `saquery -g` from two hosts, `saquery -m` per
# group, trusted and not) and the same MulticastForwardingTables on every switch (`ibroute -M`).
# Then, on cloudsmd alone: a leave takes the port out of the MFTs, the last full member's leave
# deletes a group that is not well known (its MFT entries go), a restart sends no MFT block
# (the switches hold the right tables), and the IPoIB groups survive without members.
source "$(dirname "$0")/../lib/common.sh"
require_oracles ibsim opensm saquery ibroute ibswitches
CLOUDSMD=${CLOUDSM_BUILD_DIR:?}/cloudsmd
JOIN=${CLOUDSM_BUILD_DIR}/mc_join
cd "$WORK" || exit 1

# 4-ary-3-tree: 64 hosts H-0010000000000000 .. H-0010000000003f00 (port GUID +1), 4 per leaf,
# 16 per pod; 48 switches.
"$CLOUDSM" topo gen kary 4 3 -o tree.topo || fail "topo gen"
# Blue's broadcast group is 40 Gb/s, Red's wants MTU 4096, which ibsim's ports (MTUCap 2048)
# cannot take: joins are refused. Red's scope flag applies to its mgid= group, not to its
# broadcast group; its Q_Key to both.
cat >partitions.conf <<'PART'
Default=0x7fff, ipoib : ALL=full ;
Blue=0x0001, ipoib, mtu=4, rate=7 : 0x0010000000000101=full, 0x0010000000000901=full,
  0x0010000000002101=full ;
Red=0x0002, ipoib, mtu=5, scope=5, Q_Key=0x1234 : 0x0010000000000201=full,
  mgid=ff12:a01b::77 ;
PART
BCAST=ff12:401b:ffff::ffff:ffff
BLUE=ff12:401b:8001::ffff:ffff
NAMED=ff15:1234::1

host() { printf 'H-00100000000%05x' $(($1 * 256)); } # host N's node description for SIM_HOST
join() { # join DIR HOST ARGS...: one mc_join from that host, its answer kept in order
  local dir=$1 h=$2; shift 2
  echo "$(host "$h") $*: $(SIM_HOST=$(host "$h") sim "$JOIN" "$@" 2>/dev/null)" >>"$dir/joins"
}
mfts() { # mfts FILE: every switch's MFT, by switch GUID, in GUID order
  local lid
  for lid in $(sim ibswitches 2>/dev/null | sed -nE 's/.* lid ([0-9]+) .*/\1/p'); do
    sim ibroute -M "$lid" 2>/dev/null |
      sed -nE 's/.* guid (0x[0-9a-f]+) .*/switch \1/p; /^0x/p'
  done | awk '/^switch/ {sw = $2; next} {print sw, $0}' | sort >"$1"
}
queries() { # queries DIR: the groups as saquery shows them
  SIM_HOST=$(host 0) sim saquery -g >"$1/groups.host0" 2>/dev/null
  SIM_HOST=$(host 1) sim saquery -g >"$1/groups.host1" 2>/dev/null
  SIM_HOST=$(host 2) sim saquery MCMR >"$1/records.host2" 2>/dev/null
  local mlid
  for mlid in 0xc000 0xc001 0xc002 0xc003 0xc004 0xc005 0xc006; do
    SIM_HOST=$(host 1) sim saquery -m "$mlid" >"$1/members.$mlid" 2>/dev/null
    SIM_HOST=$(host 1) sim saquery -m "$mlid" --smkey 1 >"$1/members.trusted.$mlid" 2>/dev/null
  done
}
scenario() { # scenario DIR: the joins and leaves, the same against either SM
  local dir=$1
  mkdir -p "$dir"
  queries "$dir"
  mv "$dir/groups.host0" "$dir/groups.before.host0"
  mv "$dir/groups.host1" "$dir/groups.before.host1"
  join "$dir" 0 join $BCAST
  join "$dir" 5 join $BCAST
  join "$dir" 26 join $BCAST
  join "$dir" 63 join $BCAST
  join "$dir" 63 join $BCAST non      # a second join adds a join state
  join "$dir" 1 join $BLUE
  join "$dir" 33 join $BLUE
  join "$dir" 7 join $BLUE            # host 7 is not in Blue
  join "$dir" 2 join ff12:401b:8002::ffff:ffff # Red's MTU is too large for the port
  join "$dir" 2 join ff15:a01b::77    # Red's mgid= group, at the scope of its flag
  join "$dir" 2 create ::             # the SA makes the MGID
  join "$dir" 3 create $NAMED
  join "$dir" 48 join $NAMED sendonly
  join "$dir" 4 join ff12:1234::9     # no such group, no create components
  join "$dir" 4 create ff12:1234::9 non # only a full member creates
  join "$dir" 4 leave ff12:401b:ffff::ffff:ffff # not a member
  join "$dir" 26 leave $BCAST
  join "$dir" 26 leave $BCAST         # twice
  sleep 1
  queries "$dir"
  mfts "$dir/mfts"
  local lid # MFTRecords, a switch at a time (ibsim hands a client one MAD of a table)
  for lid in $(sim ibswitches 2>/dev/null | sed -nE 's/.* lid ([0-9]+) .*/\1/p' | sort -n); do
    SIM_HOST=$(host 1) sim saquery MFTR "$lid/0/0" 2>/dev/null
  done >"$dir/mft_records"
}

start_ibsim tree.topo
mkdir -p osm
OSM_CACHE_DIR=$WORK/osm OSM_TMP_DIR=$WORK/osm LD_PRELOAD="$UMAD2SIM" opensm -R ftree \
  -P "$WORK/partitions.conf" -f "$WORK/osm/osm.log" >osm.out 2>&1 &
osm=$!
SIM_PIDS+=("$osm")
wait_log osm.out "Entering MASTER state" 1 20
check "OpenSM is up" grep -q "Entering MASTER state" osm.out
sleep 2
scenario osm.mc
stop_daemon "$osm"
stop_ibsim

start_ibsim tree.topo
mkdir -p state && cp osm/guid2lid state/guid2lid
printf 'partition_config_file %s\nrouting_engine ftree\nsweep_interval 30\n' \
  "$WORK/partitions.conf" >sm.conf
start_cloudsmd_daemon sm.log -c sm.conf --state-dir state
scenario ours.mc

compare_dirs osm.mc ours.mc
expect_eq "files compared with OpenSM's" 22 "$compared"
check "MFTRecords compared: one per switch with a tree" \
  test "$(grep -c 'MFT Record dump' ours.mc/mft_records)" -ge 3
expect_eq "files that differ from OpenSM's" 0 "$differing"
check "OpenSM made Blue's IPoIB group" grep -q "ff12:401b:8001::ffff:ffff" osm.mc/groups.before.host1
expect_eq "joins and leaves answered, of 18" 18 "$(grep -c 'status' ours.mc/joins)"
expect_eq "joins and leaves refused, of 18" 7 "$(grep -c 'status 0x0[2-6]00' ours.mc/joins)"
expect_eq "MFT entries (switch, MLID) as OpenSM's, with three trees" 3 \
  "$(awk '{print $2}' ours.mc/mfts | sort -u | wc -l)"
check "the broadcast group's tree spans several switches" \
  test "$(grep -c ' 0xc000 ' ours.mc/mfts)" -ge 3
check "the logs say the MFTs were written" grep -qE "mfts: .* [1-9][0-9]* blocks sent" sm.log

# A leave takes the port out of the tree: host 5's leaf forwards 0xc000 to it no longer.
SIM_HOST=$(host 5) sim "$JOIN" leave $BCAST >/dev/null 2>&1
sleep 0.5
mfts after-leave.mfts
leaf1=$(sim ibswitches 2>/dev/null | awk '/sw-L1-1"/ {print $3}')
check "host 5's leaf lost 0xc000 (it had it)" \
  test "$(grep -c "^$leaf1 0xc000" ours.mc/mfts)" = 1 -a "$(grep -c "^$leaf1 0xc000" after-leave.mfts)" = 0
# The named group's only full member leaves: the group goes (0xc004 no longer in any MFT,
# saquery finds no such group); the send-only member went with it.
SIM_HOST=$(host 3) sim "$JOIN" leave $NAMED >/dev/null 2>&1
sleep 0.5
mfts after-delete.mfts
expect_eq "the named group's MFT entries" 0 "$(grep -c ' 0xc005 ' after-delete.mfts)"
expect_eq "the named group in saquery" 0 \
  "$(SIM_HOST=$(host 1) sim saquery -g 2>/dev/null | grep -c 'ff15:1234::1')"
# A restart: memberships live in the SM's memory (as in OpenSM), so the first restart clears
# the trees it finds in the switches (read back); a second finds the tables right, sends none.
stop_daemon "$daemon"
start_cloudsmd_daemon sm2.log -c sm.conf --state-dir state
check "restart: the old trees cleared" grep -qE "mfts: .* blocks read back, [1-9][0-9]* blocks sent" sm2.log
stop_daemon "$daemon"
start_cloudsmd_daemon sm3.log -c sm.conf --state-dir state
check "second restart: no MFT block sent" grep -qE "mfts: .* [1-9][0-9]* blocks read back, 0 blocks sent" sm3.log
# Without members, the IPoIB groups are still there (well known), with their MLIDs.
expect_eq "IPoIB groups after the restart (host 1 sees Default and Blue)" 2 \
  "$(SIM_HOST=$(host 1) sim saquery -g 2>/dev/null | grep -c 'MGID')"
finish
