#!/usr/bin/env bash
# QoS on ibsim: OpenSM 3.3.23 and cloudsmd, each run with the same opensm.conf QoS keys on a fresh
# ibsim, leave the same VLArbitration tables, SL2VL tables and PortInfo VLHighLimit/OperVLs on a
# sample of ports (CA ports, switch external ports linked and not, base switch port 0), as
# smpquery reads them along directed routes from host 0. A restart of cloudsmd on the programmed
# fabric sends no VLArbitration block and no SL2VL table; a SIGHUP with a new qos_swe_vlarb_low
# writes the switch ports' low blocks and nothing else. PathRecord SLs (partitions.conf's sl=)
# are OpenSM's, with QoS and without. Without qos, cloudsmd runs no QoS phase and leaves the
# tables as they are.
source "$(dirname "$0")/../lib/common.sh"
require_oracles ibsim opensm smpquery saquery
CLOUDSMD=${CLOUDSM_BUILD_DIR:?}/cloudsmd
cd "$WORK" || exit 1

# 2-ary-2-tree: hosts 0,1 on leaf sw-L1-0 (ports 1, 2), its ports 3, 4 up to the two spines; a
# spine has 4 ports, 2 linked.
"$CLOUDSM" topo gen kary 2 2 -o tree.topo || fail "topo gen"

# Every class inherits something and overrides something; VL 9 and SL2VL's VLs above 7 meet
# ibsim's VL0-7 ports (OpenSM's mask), VL 15 (drop) stays.
cat >qos.conf <<'EOT'
qos TRUE
qos_high_limit 3
qos_vlarb_high 0:4,1:2,2:9
qos_vlarb_low 0:1,1:5,3:7,9:3
qos_ca_sl2vl 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
qos_ca_high_limit 4
qos_swe_vlarb_low 2:8,5:1,14:200
qos_swe_sl2vl 1,0,3,2,5,4,7,6,9,8,11,10,13,12,15,14
qos_sw0_vlarb_high 1:1
EOT

# PathRecord SLs (partitions.conf's sl= flag, used with QoS): Default on SL 1, Blue (hosts 0
# and 1) on SL 2, Red (hosts 2 and 3) without an SL flag.
cat >partitions.conf <<'EOT'
Default=0x7fff, ipoib, sl=1 : ALL=full ;
Blue=0x0001, sl=2 : 0x0010000000000001=full, 0x0010000000000101=full ;
Red=0x0002 : 0x0010000000000201=full, 0x0010000000000301=full ;
EOT
echo "partition_config_file $WORK/partitions.conf" >>qos.conf

lid_of() { awk -v g="$2" '$1 == g {print $2 + 0}' "$1"; }
path_sls() { # path_sls GUID2LID: the SL of PathRecords in Default, Blue and Red
  local h0 h1 h2 h3
  h0=$(lid_of "$1" 0x0010000000000001) h1=$(lid_of "$1" 0x0010000000000101)
  h2=$(lid_of "$1" 0x0010000000000201) h3=$(lid_of "$1" 0x0010000000000301)
  for q in "$h0:$h2 0x7fff" "$h0:$h1 0x0001" "$h2:$h3 0x0002"; do
    SIM_HOST=H-0010000000000000 sim saquery -p --src-to-dst "${q% *}" --pkey "${q#* }" 2>/dev/null |
      sed -nE 's/^[[:space:]]*sl\.+(0x[0-9a-f]+)$/\1/p' | head -1
  done | tr '\n' ' '
}

# DR paths from host 0: its own port, leaf sw-L1-0, host 1, spine sw-L2-0.
snapshot() { # snapshot FILE: what smpquery reads on the sample
  {
    for p in 0 0,1,2; do
      echo "== CA $p"
      sim smpquery vlarb -D "$p" 1 2>/dev/null | grep -v '^#.*DR path'
      sim smpquery sl2vl -D "$p" 2>/dev/null | grep '^ports:'
      sim smpquery portinfo -D "$p" 1 2>/dev/null | grep -E '^(VLHighLimit|OperVLs)'
    done
    for sw in 0,1 0,1,3; do
      for port in 0 1 2 3 4; do
        echo "== switch $sw port $port"
        sim smpquery vlarb -D "$sw" "$port" 2>/dev/null | grep -v '^#.*DR path'
        sim smpquery portinfo -D "$sw" "$port" 2>/dev/null | grep -E '^(VLHighLimit|OperVLs)'
      done
      for out in 1 2; do # linked on both (cloudsmd programs the linked inputs: all here for
        # the leaf, 0..2 for the spine)
        sim smpquery sl2vl -D "$sw" "$out" 2>/dev/null | grep '^ports:' |
          awk -v sw="$sw" '$3 + 0 <= (sw == "0,1" ? 4 : 2)'
      done
    done
  } >"$1"
}

# OpenSM without QoS: the PathRecord SLs the partitions' flags give then.
printf 'qos FALSE\npartition_config_file %s\n' "$WORK/partitions.conf" >noqos.conf
start_ibsim tree.topo
start_opensm_daemon osm-noqos -F "$WORK/noqos.conf"
osm_noqos_sls=$(path_sls osm-noqos/guid2lid)
stop_ibsim # stops the last process started: OpenSM
stop_ibsim # then ibsim

start_ibsim tree.topo
start_opensm_daemon osm -F "$WORK/qos.conf"
sleep 2
snapshot opensm.txt
osm_sls=$(path_sls osm/guid2lid)
stop_ibsim # stops the last process started: OpenSM
stop_ibsim # then ibsim

start_ibsim tree.topo
mkdir -p state
start_cloudsmd_daemon sm.log -c "$WORK/qos.conf" --state-dir state
snapshot cloudsmd.txt
check "the snapshot reads something" grep -q "WEIGHT" cloudsmd.txt
expect_eq "PathRecord SLs in Default, Blue, Red as OpenSM's" "$osm_sls" "$(path_sls state/guid2lid)"
expect_eq "PathRecord SLs: the sl= flags" "0x1 0x2 0x0 " "$osm_sls"
check "QoS changed ibsim's tables (low VL 3 weight 7)" grep -q '0x7 ' cloudsmd.txt
if ! cmp -s opensm.txt cloudsmd.txt; then
  fail "smpquery vlarb/sl2vl/portinfo differ between OpenSM and cloudsmd"
  diff opensm.txt cloudsmd.txt | head -40
fi
sent() { sed -nE "s/.*qos: sl2vl from the templates, [0-9]+ tables read back, ([0-9]+) tables sent; vlarb: [0-9]+ blocks read back, ([0-9]+) blocks sent.*/\1 \2/p" "$1" | tail -1; }
read -r tables blocks <<<"$(sent sm.log)"
check "first run: tables sent ($tables)" test "${tables:-0}" -gt 0
check "first run: blocks sent ($blocks)" test "${blocks:-0}" -gt 0
stop_daemon "$daemon"

start_cloudsmd_daemon restart.log -c "$WORK/qos.conf" --state-dir state
expect_eq "restart: SL2VL tables and VLArbitration blocks sent" "0 0" "$(sent restart.log)"
# SIGHUP with a new switch low table: re-routed, the QoS phase writes the switch ports' low block
# only (12 linked switch ports), and smpquery reads the new weights.
sed -i 's/^qos_swe_vlarb_low .*/qos_swe_vlarb_low 0:1,1:2/' qos.conf
kill -HUP "$daemon"
wait_log restart.log "SIGHUP: " 1 20
wait_log restart.log "qos: sl2vl from the templates" 2 20
check "SIGHUP: qos_swe_vlarb_low changed" grep -q "SIGHUP: .*changed: qos_swe_vlarb_low" restart.log
expect_eq "SIGHUP: SL2VL tables and VLArbitration blocks sent" "0 12" "$(sent restart.log)"
expect_eq "SIGHUP: leaf port 3's low weights" "WEIGHT: |0x1 |0x2 |0x0 |0x0 |0x0 |0x0 |0x0 |0x0 |" \
  "$(sim smpquery vlarb -D 0,1 3 2>/dev/null | grep WEIGHT | head -1)"
snapshot hup.txt
stop_daemon "$daemon"

# qos FALSE (the default): no QoS phase; the tables stay as QoS left them, and the
# PathRecord SLs are OpenSM's without QoS.
start_cloudsmd_daemon noqos.log -c "$WORK/noqos.conf" --state-dir state
expect_eq "qos FALSE: PathRecord SLs as OpenSM's" "$osm_noqos_sls" "$(path_sls state/guid2lid)"
check "qos FALSE: no QoS phase" bash -c '! grep -q "qos:" noqos.log'
snapshot noqos.txt
check "qos FALSE: nothing reprogrammed" cmp -s hup.txt noqos.txt
finish
