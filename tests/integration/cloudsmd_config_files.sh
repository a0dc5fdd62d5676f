#!/usr/bin/env bash
# cloudsmd checks every file its configuration names before it touches the fabric (issue 12
# item 7): a bad partitions.conf, root_guid_file or cn_guid_file stops it with file:line and
# exit 1, and on ibsim nothing was programmed (no LIDs, no guid2lid, no port opened). A
# configured partitions.conf that does not exist still means Default only, as in OpenSM.
source "$(dirname "$0")/../lib/common.sh"
require_oracles ibsim smpquery
CLOUDSMD=${CLOUDSM_BUILD_DIR:?}/cloudsmd
cd "$WORK" || exit 1

"$CLOUDSM" topo gen kary 4 2 -o tree.topo || fail "topo gen"
start_ibsim tree.topo
local_lid() { sim smpquery -D portinfo 0 2>/dev/null | sed -nE 's/^Lid:\.*([0-9]+)$/\1/p'; }
expect_eq "a fresh fabric: the SM host's port has LID 0" 0 "$(local_lid)"

cat >good-partitions.conf <<'EOF2'
Default=0x7fff : ALL=full ;
EOF2
cat >bad-partitions.conf <<'EOF2'
Default=0x7fff : ALL=full ;

Blue=0x0001 : 0x0010000000000101=full, 0xnot-a-guid ;
EOF2
printf '0x0020000200000000\n0x0020000200000001 spine-1\nroot-2\n' >bad.roots
printf '# compute nodes\n0x0010000000000001\n0x0010000000000001\n' >bad.cns

# refuses NAME EXPECTED_MESSAGE CONFIG_LINES...: cloudsmd -o exits 1 with the message (on
# stderr, and in the log file) and has not touched the fabric.
refuses() {
  local name=$1 want=$2; shift 2
  printf "%s\n" "$@" >"$name.sm.conf"
  rm -rf "state-$name"
  timeout -s KILL 60 env LD_PRELOAD="$UMAD2SIM" "$CLOUDSMD" -R ftree -o -c "$name.sm.conf" \
    --state-dir "state-$name" --log-file "$name.log" >"$name.out" 2>"$name.err"
  expect_eq "$name: exit status" 1 $?
  check "$name: stderr says '$want'" grep -qF "cloudsmd: $want" "$name.err"
  check "$name: the log says it at ERROR" grep -qF "ERROR $want" "$name.log"
  check "$name: the port was never opened" test -z "$(grep "cloudsmd on " "$name.log")"
  check "$name: no guid2lid written" test ! -e "state-$name/guid2lid"
  expect_eq "$name: the SM host's port still has LID 0" 0 "$(local_lid)"
}
refuses bad-partitions "$WORK/bad-partitions.conf:3: bad port GUID '0xnot-a-guid'" \
  "partition_config_file $WORK/bad-partitions.conf"
refuses bad-roots "$WORK/bad.roots:3: " \
  "partition_config_file $WORK/good-partitions.conf" "root_guid_file $WORK/bad.roots"
refuses bad-cns "$WORK/bad.cns:3: " "cn_guid_file $WORK/bad.cns"
refuses missing-roots "root_guid_file: " "root_guid_file $WORK/no-such.roots"

# A partitions.conf that is not there: Default only, said in the log, and the subnet comes up.
printf 'partition_config_file %s\n' "$WORK/no-such-partitions.conf" >missing.conf
timeout -s KILL 60 env LD_PRELOAD="$UMAD2SIM" "$CLOUDSMD" -R ftree -o -c missing.conf --state-dir state \
  --log-file missing.log >/dev/null 2>&1
expect_eq "a missing partitions.conf: cloudsmd -o succeeds" 0 $?
check "a missing partitions.conf: Default only, in the log" \
  grep -qF "partitions: no $WORK/no-such-partitions.conf: Default only" missing.log
check "a missing partitions.conf: the subnet came up (LIDs assigned)" test "$(local_lid)" -gt 0
finish
