#!/usr/bin/env bash
# cloudsmd -R vftree on ibsim with a generated vSwitch fabric: dump_fts shows exactly the tables
# `cloudsm route -R vftree` computes offline for the same LIDs (a VM on every VF); with a
# vm_state_file, those of `--vms` on the same file; a VM state that changes routes again on
# SIGHUP; a bad one stops cloudsmd with file:line before the port is opened.
source "$(dirname "$0")/../lib/common.sh"
require_oracles ibsim dump_fts
CLOUDSMD=${CLOUDSM_BUILD_DIR:?}/cloudsmd
cd "$WORK" || exit 1 # umad2sim writes its sysfs copy into the current directory

# 2-ary-2-tree: 4 hypervisors of 2 VFs on 2 leaves under 2 roots (8 switches, 4 of them vSwitches).
"$CLOUDSM" topo gen kary 2 2 --vswitch 2 -o v.topo || fail "topo gen"

printf 'vm a vguid=0x2 lid=7 hypervisor=0x0010000000000000 vf=0\n' >bad.vms
printf 'routing_engine vftree\nvm_state_file %s\n' "$WORK/bad.vms" >bad.conf
timeout -s KILL 60 "$CLOUDSMD" -o --state-dir bad-state -c bad.conf 2>bad.err
expect_eq "a bad VM state file: exit status" 1 $?
check "names file:line" grep -q "bad.vms:1: " bad.err

same_as_offline() { # $1: what, $2: dump_fts output, $3: offline tables
  "$CLOUDSM" lft diff "$3" "$2" --json >"$2.json"
  expect_eq "$1: switches in dump_fts" 8 "$(json_get "$2.json" switches_new)"
  expect_eq "$1: switches only offline" 0 "$(json_get "$2.json" switches_removed)"
  expect_eq "$1: entries differing from offline vftree" 0 "$(json_get "$2.json" entries_changed)"
}

# cloudsmd runs from a VF: ibsim attaches clients to the first node by default, a vSwitch.
export SIM_HOST=H-0030000000000100 # VF 1 of hypervisor 0
start_ibsim v.topo
timeout -s KILL 120 env LD_PRELOAD="$UMAD2SIM" "$CLOUDSMD" -o --state-dir state \
  --log-file sm.log -R vftree
expect_eq "cloudsmd -o -R vftree exit status" 0 $?
check "routed with vftree" grep -q "route: vftree tables" sm.log
sim dump_fts >all.dump 2>/dev/null || fail "dump_fts"
"$CLOUDSM" route -R vftree v.topo --guid2lid state/guid2lid --no-fallback -o all.offline ||
  fail "offline vftree"
same_as_offline "a VM on every VF" all.dump all.offline

# VMs on the LIDs cloudsmd gave the VFs (prepopulated): VF k of hypervisor i has port GUID
# 0x0030000000000000 + (i << 16) + (k << 8) + 1.
vf_lid() { printf '%d' "$(awk -v g="$(printf '0x%016x' $((0x0030000000000001 + ($1 << 16) + ($2 << 8))))" '$1 == g {print $2}' state/guid2lid)"; }
vm() { echo "vm $1 vguid=$2 lid=$(vf_lid "$3" "$4") hypervisor=$(printf '0x%016x' $((0x0010000000000000 + ($3 << 8)))) vf=$4"; }
{ vm a 0x21 0 1; vm b 0x22 0 2; vm c 0x23 2 1; } >vms
expect_eq "three VMs with LIDs" 3 "$(grep -c 'lid=[1-9]' vms)"
printf 'routing_engine vftree\nvm_state_file %s\nsweep_interval 30\n' "$WORK/vms" >sm.conf
start_cloudsmd_daemon daemon.log -c sm.conf --state-dir state
wait_log daemon.log "route: vftree tables" 1 20
sim dump_fts >three.dump 2>/dev/null || fail "dump_fts, three VMs"
"$CLOUDSM" route -R vftree --vms vms v.topo --guid2lid state/guid2lid --no-fallback \
  -o three.offline || fail "offline vftree --vms"
same_as_offline "vm_state_file" three.dump three.offline
"$CLOUDSM" lft diff all.offline three.offline --json >moved.json
check "the VM state made them differ from a VM on every VF" \
  test "$(json_get moved.json entries_changed)" -gt 0

# SIGHUP after the state changed: VM c moves to hypervisor 3.
{ vm a 0x21 0 1; vm b 0x22 0 2; vm c 0x23 3 1; } >vms
kill -HUP "$daemon"
wait_log daemon.log "SIGHUP: routed with vftree" 1 20
check "SIGHUP: the changed file is named" \
  grep -q "SIGHUP: configuration read again; changed: nothing; files changed: vm_state_file" \
  daemon.log
sim dump_fts >hup.dump 2>/dev/null || fail "dump_fts after SIGHUP"
"$CLOUDSM" route -R vftree --vms vms v.topo --guid2lid state/guid2lid --no-fallback \
  -o hup.offline || fail "offline vftree, new state"
same_as_offline "SIGHUP" hup.dump hup.offline
"$CLOUDSM" lft diff three.offline hup.offline --json >hup-moved.json
check "SIGHUP: the tables did change" test "$(json_get hup-moved.json entries_changed)" -gt 0

finish
