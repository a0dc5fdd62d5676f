#!/usr/bin/env bash
# Partitions on ibsim: cloudsmd programs the P_Key tables a partitions.conf asks for, entry for
# entry what OpenSM 3.3.23 programs from the same file on the same fabric with the same LIDs
# (`smpquery pkeys` on every CA port and on the switch ports facing them); a restart sends no
# P_Key block; and the tables say what the file says.
source "$(dirname "$0")/../lib/common.sh"
require_oracles ibsim opensm smpquery
CLOUDSMD=${CLOUDSM_BUILD_DIR:?}/cloudsmd
cd "$WORK" || exit 1

# 4-ary-2-tree: 16 hosts (H-...0000 .. H-...0f00, port GUIDs +1), 8 switches.
"$CLOUDSM" topo gen kary 4 2 -o tree.topo || fail "topo gen"
cat >partitions.conf <<'EOF'
Default=0x7fff : ALL=full ;
Blue=0x0001 : 0x0010000000000101=full, 0x0010000000000201=full, 0x0010000000000301 ;
Red=0x0002 : 0x0010000000000501=full, 0x0010000000000601=full, 0x0010000000000201=full ;
EOF

# pkeys_of DIR: every CA port's table and every switch port's (by LID/port), as smpquery prints it.
pkeys_of() {
  local out=$1
  : >"$out"
  local guid lid
  while read -r guid lid _; do
    [[ $guid == 0x0010* ]] || continue
    echo "CA $guid" >>"$out"
    sim smpquery pkeys $((lid)) 2>/dev/null | grep -v "^#" >>"$out"
  done < <(grep "^0x" "$2" | sort)
  sim ibnetdiscover 2>/dev/null |
    sed -nE 's/^Switch.*lid ([0-9]+).*/\1/p' | while read -r swlid; do
    for port in 1 2 3 4; do # the ports facing hosts on a leaf
      echo "SW $swlid/$port" >>"$out"
      sim smpquery pkeys "$swlid" "$port" 2>/dev/null | grep -v "^#" >>"$out"
    done
  done
}

start_ibsim tree.topo
run_opensm osm ftree -P "$WORK/partitions.conf" || fail "opensm -o -P"
pkeys_of osm.pkeys osm/guid2lid
stop_ibsim

start_ibsim tree.topo
mkdir -p state && cp osm/guid2lid state/guid2lid
printf 'partition_config_file %s\n' "$WORK/partitions.conf" >sm.conf
timeout -s KILL 60 env LD_PRELOAD="$UMAD2SIM" "$CLOUDSMD" -R ftree -o -c sm.conf --state-dir state \
  --log-file sm1.log
expect_eq "cloudsmd -o with partitions" 0 $?
pkeys_of ours.pkeys state/guid2lid
check "P_Key tables equal OpenSM's (CA ports and switch ports)" cmp -s osm.pkeys ours.pkeys
diff osm.pkeys ours.pkeys | head -10
# What the file says, read straight from the tables.
blue_full=$(sim smpquery pkeys $(( $(awk '/^0x0010000000000101/ {print $2}' state/guid2lid) )) 2>/dev/null | grep -o '0x8001' | head -1)
expect_eq "host 1 is a full member of Blue" 0x8001 "$blue_full"
blue_limited=$(sim smpquery pkeys $(( $(awk '/^0x0010000000000301/ {print $2}' state/guid2lid) )) 2>/dev/null | grep -oE '0x0001\b' | head -1)
expect_eq "host 3 is a limited member of Blue" 0x0001 "$blue_limited"
none=$(sim smpquery pkeys $(( $(awk '/^0x0010000000000401/ {print $2}' state/guid2lid) )) 2>/dev/null | grep -cE '0x(8|0)00[12]\b')
expect_eq "host 4 is in neither Blue nor Red" 0 "$none"

timeout -s KILL 60 env LD_PRELOAD="$UMAD2SIM" "$CLOUDSMD" -R ftree -o -c sm.conf --state-dir state \
  --log-file sm2.log
expect_eq "restart with partitions" 0 $?
expect_eq "restart: P_Key blocks sent" 0 \
  "$(sed -nE 's/.*pkeys: [0-9]+ partitions, [0-9]+ blocks read back, ([0-9]+) blocks sent.*/\1/p' sm2.log)"
finish
