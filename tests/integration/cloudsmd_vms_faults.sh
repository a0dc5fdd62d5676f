#!/usr/bin/env bash
# Live VMs under cloudsmd on ibsim, as an adversary would have them:
#  1. Parallel and queued: three migrations sent while cloudsmd is stopped (SIGSTOP), so that
#     they arrive together: the two in disjoint sub-trees run as one batch, the one that touches
#     the first's leaf waits for it (batch of its own); all three land where asked.
#  2. SIGKILL in the middle of a migration (prepopulated LIDs: a swap, the case that cannot be
#     replayed blindly): a root switch drops every packet (ibsim Error 100) so that the
#     migration's SMPs to it are retried, and cloudsmd is killed while they are; then the root
#     heals and cloudsmd starts again. The fabric is consistent: the VM is where the VM state
#     says (its source or its destination), its LID on that VF alone, a LID-routed SMP reaches
#     it there, and `lft check` finds every pair delivered, on the tables the switches hold.
#     Once killed right after the request too.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/../lib/vswitch_guids.sh" # hyp I, vf_guid I K
require_oracles ibsim dump_fts ibnetdiscover smpquery
CLOUDSMD=${CLOUDSM_BUILD_DIR:?}/cloudsmd
cd "$WORK" || exit 1 # umad2sim writes its sysfs copy into the current directory

"$CLOUDSM" topo gen kary 2 3 --vswitch 4 --plain-hosts 1 -o v.topo || fail "topo gen"
export SIM_HOST=H-0010000000000700
vmc() { "$CLOUDSM" vm "$1" --state-dir state "${@:2}"; }
json() { jq -r ".$2" "$1"; }

IBSIM_CONSOLE=1 start_ibsim v.topo
printf 'routing_engine vftree\nsweep_interval 0\nvm_lid_policy prepopulated\n' >sm.conf
start_cloudsmd_daemon sm.log -c sm.conf --state-dir state
for vm in b:0 c:4 d:1 a:2; do
  vmc create --vm "${vm%%:*}" --to "$(hyp "${vm#*:}")" --vguid "0x20$(printf '%02d' "${vm#*:}")" \
    >/dev/null || fail "create ${vm%%:*}"
done

# ---- 1. Together: b (hypervisor 0 -> 1, leaf 0), c (4 -> 5, leaf 2), d (1 -> 0, leaf 0). ----
kill -STOP "$daemon"
vmc migrate --vm b --to "$(hyp 1)" --json >b.json 2>b.err &
pb=$!
sleep 0.2
vmc migrate --vm c --to "$(hyp 5)" --json >c.json 2>c.err &
pc=$!
sleep 0.2
vmc migrate --vm d --to "$(hyp 0)" --json >d.json 2>d.err &
pd=$!
sleep 0.3
kill -CONT "$daemon"
wait_exit $pb 60; expect_eq "b migrated" 0 $?
wait_exit $pc 60; expect_eq "c migrated" 0 $?
wait_exit $pd 60; expect_eq "d migrated" 0 $?
expect_eq "b and c (disjoint sub-trees) ran as one batch" "2 2" \
  "$(json b.json batch_size) $(json c.json batch_size)"
expect_eq "d (b's leaf) waited: a batch of its own" 1 "$(json d.json batch_size)"
vmc list --json >list.json
expect_eq "all three where asked" "$(hyp 1) $(hyp 5) $(hyp 0)" \
  "$(jq -r '[.vms[] | select(.name == "b" or .name == "c" or .name == "d")] |
            sort_by(.name) | map(.hypervisor) | join(" ")' list.json)"
"$CLOUDSM" sm status --state-dir state --json >status.json
expect_eq "status counts the batches: 4 creates, then 2 batches" 6 "$(json status.json vm_batches)"

# consistent LABEL: the VM a is where the state says, alone with its LID, reachable, and every
# route the switches hold is fine.
consistent() {
  local label=$1 place hv vf lid
  place=$(awk '$1 == "vm" && $2 == "a"' state/vms)
  hv=$(sed -nE 's/.*hypervisor=0x([0-9a-f]+).*/\1/p' <<<"$place")
  vf=$(sed -nE 's/.*vf=([0-9]+).*/\1/p' <<<"$place")
  lid=$(sed -nE 's/.*lid=([0-9]+).*/\1/p' <<<"$place")
  local i=$(((0x$hv - 0x0010000000000000) >> 8))
  sim ibnetdiscover >"$label.disc" 2>/dev/null || fail "$label: ibnetdiscover"
  expect_eq "$label: one port has a's LID $lid" 1 "$(grep -c "# lid $lid lmc" "$label.disc")"
  check "$label: it is a's VF (hypervisor $i VF $vf)" \
    grep -q "($(printf '%x' "$(vf_guid "$i" "$vf")")).*# lid $lid lmc" "$label.disc"
  sim smpquery nodeinfo "$lid" >"$label.reach" 2>&1
  check "$label: a LID-routed SMP to LID $lid reaches that VF" \
    grep -q "^PortGuid:\.*$(vf_guid "$i" "$vf")$" "$label.reach"
  sim dump_fts >"$label.fts" 2>/dev/null || fail "$label: dump_fts"
  "$CLOUDSM" lft convert "$label.fts" --format osm -o "$label.osm" >/dev/null
  "$CLOUDSM" lft check "$label.disc" "$label.osm" --json >"$label.check.json"
  expect_eq "$label: lft check on what the switches hold" true "$(json "$label.check.json" ok)"
}
consistent before

# ---- 2. SIGKILL mid-migration: a (hypervisor 2) to hypervisor 6, across the roots. ----
ROOTS=(S-0020000300000000 S-0020000300000001 S-0020000300000002 S-0020000300000003)
crash() { # crash LABEL DELAY DESTINATION
  local label=$1 delay=$2 to=$3
  local r
  for r in "${ROOTS[@]}"; do ibsim_cmd "Error \"$r\" 100"; done
  vmc migrate --vm a --to "$(hyp "$to")" --timeout 2 >"$label.out" 2>&1 &
  local client=$!
  sleep "$delay"
  stop_daemon "$daemon" KILL
  for r in "${ROOTS[@]}"; do ibsim_cmd "Error \"$r\" 0"; done
  wait_exit "$client" 30 # --timeout 2
  cp state/vms "$label.vms"
  # What the crash left, before cloudsmd starts again.
  sim ibnetdiscover >"$label.left.disc" 2>/dev/null
  sim dump_fts >"$label.left.fts" 2>/dev/null
  "$CLOUDSM" lft convert "$label.left.fts" --format osm -o "$label.left.osm" >/dev/null
  "$CLOUDSM" lft check "$label.left.disc" "$label.left.osm" --json >"$label.left.json" \
    2>"$label.left.err"
  echo $? >"$label.left.rc"
  start_cloudsmd_daemon "$label.log" -c sm.conf --state-dir state
  check "$label: the restart had no failures" grep -q "subnet up: .* 0 failures" "$label.log"
  consistent "$label"
}
crash killed-mid 0.4 6
check "killed-mid: the state was written before the SMPs (a is at its destination)" \
  grep -q "^vm a .*hypervisor=$(hyp 6) " killed-mid.vms
# Killed between the two hypervisors' stages: both VFs answered the VM's LID, or routes failed.
check "killed-mid: the crash left the fabric inconsistent (the test is not vacuous)" \
  test "$(cat killed-mid.left.rc)" -ne 0
cat killed-mid.left.err
crash killed-early 0 3
finish
