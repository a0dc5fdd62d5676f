#!/usr/bin/env bash
# Live VMs under cloudsmd on ibsim (a 2-ary-3-tree whose first 7 host slots are vSwitch
# hypervisors with 4 VFs each and whose last is a plain host for the SM), once with prepopulated VM LIDs (swap) and once with dynamic ones (copy):
#  - VMs are created, then migrated leaf-local, across a middle switch and across the roots;
#  - before each operation the offline planner (`cloudsm vm plan`) is run on what the SM holds
#    (`cloudsm sm lfts`, its VM state): the live operation sends exactly the planned physical
#    LFT SMPs, and afterwards dump_fts (every switch, vSwitches too) equals the planned tables;
#  - the VM's LID is on its destination VF and not on its source (ibnetdiscover reads every
#    port's PortInfo; `smpquery portinfo` by directed route reads the two VFs'), a LID-routed
#    smpquery reaches it by its new place, `lft check` passes;
#  - a leaf-local migration is 1 LFT SMP under copy; a dynamic create 1 per physical switch;
#  - refused requests (unknown VM, full hypervisor, the SM's own VF, no such hypervisor) change
#    nothing; a restart keeps every VM's LID and sends no LFT block.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/../lib/vswitch_guids.sh" # hyp I, vf_guid I K
require_oracles ibsim dump_fts ibnetdiscover smpquery
CLOUDSMD=${CLOUDSM_BUILD_DIR:?}/cloudsmd
cd "$WORK" || exit 1 # umad2sim writes its sysfs copy into the current directory

"$CLOUDSM" topo gen kary 2 3 --vswitch 4 --plain-hosts 1 -o v.topo || fail "topo gen"
# The SM runs on host 7, a plain CA (ibsim attaches clients to the CA node SIM_HOST names).
export SIM_HOST=H-0010000000000700

# LID of a CA port as ibnetdiscover finds it (0: none): its line "[1](PORTGUID) ... # lid N".
disc_lid() { awk -v g="($(printf '%x' "$2"))" '$0 ~ /^Ca/ {ca = 1} $0 ~ /^Switch/ {ca = 0}
  ca && index($1, g) { for (i = 1; i <= NF; i++) if ($i == "lid") { print $(i + 1); exit } }' "$1"; }

# run_case POLICY: one daemon, one ibsim, every check.
run_case() {
  local policy=$1 d="$WORK/$1"
  mkdir -p "$d"
  start_ibsim v.topo
  printf "routing_engine vftree\nsweep_interval 0\nvm_lid_policy %s\n" "$policy" >"$d/sm.conf"
  start_cloudsmd_daemon "$d/sm.log" -c "$d/sm.conf" --state-dir "$d/state"
  vmc() { "$CLOUDSM" vm "$1" --state-dir "$d/state" "${@:2}"; }

  # op NAME DESCRIPTION VMCMD ARGS...: plan offline on what the SM holds, run live, compare.
  op() {
    local name=$1 what=$2 cmd=$3; shift 3
    "$CLOUDSM" sm lfts --state-dir "$d/state" -o "$d/$name.before" || fail "$policy $what: sm lfts"
    cp "$d/state/vms" "$d/$name.vms" 2>/dev/null || printf 'lid_policy %s\n' "$policy" >"$d/$name.vms"
    local plan_args=("$@")
    "$CLOUDSM" vm plan "$cmd" v.topo "$d/$name.before" "$d/$name.vms" "${plan_args[@]}" \
      --method ftreeminrc -o "$d/$name.planned" --json >"$d/$name.plan.json" ||
      fail "$policy $what: offline plan"
    local live_args=()
    for a in "$@"; do live_args+=("$a"); done
    vmc "$cmd" "${live_args[@]}" --json >"$d/$name.json" || fail "$policy $what: vm $cmd"
    expect_eq "$policy $what: physical LFT SMPs = the plan's" \
      "$(json_get "$d/$name.plan.json" lft_smps)" "$(json_get "$d/$name.json" lft_smps)"
    sim dump_fts >"$d/$name.fts" 2>/dev/null || fail "$policy $what: dump_fts"
    "$CLOUDSM" lft diff "$d/$name.planned" "$d/$name.fts" --json >"$d/$name.diff.json"
    expect_eq "$policy $what: dump_fts = the planned tables (entries)" 0 \
      "$(json_get "$d/$name.diff.json" entries_changed)"
    expect_eq "$policy $what: dump_fts = the planned tables (switches)" 19 \
      "$(json_get "$d/$name.diff.json" switches_new)"
    sim ibnetdiscover >"$d/$name.disc" 2>/dev/null || fail "$policy $what: ibnetdiscover"
    "$CLOUDSM" lft convert "$d/$name.fts" --format osm -o "$d/$name.osm" >/dev/null
    "$CLOUDSM" lft check "$d/$name.disc" "$d/$name.osm" --skip-ports-without-lid \
      >"$d/$name.check" 2>&1
    expect_eq "$policy $what: lft check on the live tables" 0 $?
  }

  # Two VMs on hypervisor 0 (VFs 1, 2) and one on hypervisor 2.
  op create-a "create a" create --vm a --to "$(hyp 0)" --vguid 0x0200000000000001
  op create-b "create b" create --vm b --to "$(hyp 0)" --vguid 0x0200000000000002
  op create-c "create c" create --vm c --to "$(hyp 2)" --vguid 0x0200000000000003
  if [[ $policy == dynamic ]]; then
    expect_eq "dynamic create: one LFT SMP per physical switch" 12 \
      "$(json_get "$d/create-a.json" lft_smps)"
  else
    expect_eq "prepopulated create: no LFT SMP" 0 "$(json_get "$d/create-a.json" lft_smps)"
  fi
  local lid_a
  lid_a=$(json_get "$d/create-a.json" lid)

  # Leaf-local (hypervisors 0 and 1 share a leaf), across a middle switch (0 -> 2, same pod),
  # across the roots (-> 6, the other pod).
  op local "leaf-local" migrate --vm a --to "$(hyp 1)"
  expect_eq "$policy leaf-local: FTreeMinRC selects the leaf only" 1 \
    "$(json_get "$d/local.json" switches_selected)"
  if [[ $policy == dynamic ]]; then
    expect_eq "dynamic leaf-local: 1 LFT SMP (copy)" 1 "$(json_get "$d/local.json" lft_smps)"
  fi
  op middle "across a middle switch" migrate --vm a --to "$(hyp 2)"
  op roots "across the roots" migrate --vm a --to "$(hyp 6)"
  check "$policy across the roots: more switches than across a middle one" \
    test "$(json_get "$d/roots.json" switches_selected)" -gt "$(json_get "$d/middle.json" switches_selected)"
  expect_eq "$policy: the VM kept its LID through three migrations" "$lid_a" \
    "$(json_get "$d/roots.json" lid)"
  # a runs on VF 1 of hypervisor 6 (the lowest free), and it alone has its LID.
  expect_eq "$policy: the destination VF has the VM's LID" "$lid_a" \
    "$(disc_lid "$d/roots.disc" "$(vf_guid 6 1)")"
  check "$policy: no other port has it" \
    test "$(grep -c "lid $lid_a lmc" "$d/roots.disc")" -eq 1
  local src_lid
  src_lid=$(disc_lid "$d/roots.disc" "$(vf_guid 2 2)") # where a was before the last move
  if [[ $policy == dynamic ]]; then
    expect_eq "dynamic: the source VF gave the LID up" 0 "$src_lid"
  else
    check "prepopulated: the source VF took the swapped LID" test "$src_lid" -ne "$lid_a" -a "$src_lid" -ne 0
  fi
  # smpquery portinfo by directed route from the SM's host: host-7 -> sw-L1-3 port 1 -> hyp-6
  # port 2 (VF 1); and over the roots to hyp-2 port 3 (VF 2, where a ran before).
  expect_eq "$policy: smpquery portinfo: the destination VF has the VM's LID" "$lid_a" \
    "$(sim smpquery -D portinfo 0,1,1,2 1 2>/dev/null | sed -nE 's/^Lid:\.*([0-9]+)$/\1/p')"
  expect_eq "$policy: smpquery portinfo: the source VF has what ibnetdiscover found" "$src_lid" \
    "$(sim smpquery -D portinfo 0,1,3,3,1,2,1,3 1 2>/dev/null | sed -nE 's/^Lid:\.*([0-9]+)$/\1/p')"
  sim smpquery -G nodeinfo "$(vf_guid 6 1)" >"$d/reach.txt" 2>&1
  check "$policy: a LID-routed SMP reaches the VM at its new place" \
    grep -q "^PortGuid:\.*0x0030000000060101$" "$d/reach.txt"
  # The vGUID moved with it: an alias GUID of the destination VF's port in the SA's
  # GUIDInfoRecords (ibsim's SMA refuses GUIDInfo Sets, so smpquery guids cannot show it), and a
  # PathRecord to the VM's GID (prefix + vGUID) leads to its LID.
  # (One LID at a time: under umad2sim a client gets only the first MAD of a long reply.)
  sim saquery GIR "$lid_a" >"$d/gir.txt" 2>&1 || fail "$policy: saquery GIR $lid_a"
  check "$policy: the VM's LID lists its vGUID (GUIDInfoRecord)" \
    grep -qE "GUID 1\.+0x0200000000000001$" "$d/gir.txt"
  sim saquery GIR "$(disc_lid "$d/roots.disc" "$(vf_guid 2 2)")" >"$d/gir-src.txt" 2>&1
  if [[ $policy == prepopulated ]]; then
    check "$policy: the VF it left does not" test -s "$d/gir-src.txt" -a \
      "$(grep -c 0x0200000000000001 "$d/gir-src.txt")" -eq 0
  fi
  sim saquery -p --sgid-to-dgid fe80::10:0:0:701-fe80::200:0:0:1 >"$d/path.txt" 2>&1
  check "$policy: a PathRecord to the VM's GID (its vGUID) has its LID" \
    grep -qE "dlid\.+$lid_a$" "$d/path.txt"

  # Refusals change nothing (the VM state and the tables stay).
  cp "$d/state/vms" "$d/vms.before"
  "$CLOUDSM" sm lfts --state-dir "$d/state" -o "$d/refuse.before"
  vmc migrate --vm nobody --to "$(hyp 3)" 2>"$d/e1"; expect_eq "$policy unknown VM: exit" 1 $?
  check "$policy unknown VM: says so" grep -q "no VM 'nobody'" "$d/e1"
  vmc migrate --vm a --to 0x0020000000000000 2>"$d/e2"; expect_eq "$policy not a hypervisor: exit" 1 $?
  check "$policy not a hypervisor: says so" grep -q "is not a hypervisor" "$d/e2"
  vmc create --vm x --to 0x0010000000000700 --vguid 0x77 2>"$d/e3"
  expect_eq "$policy a plain host: exit" 1 $?
  check "$policy a plain host: says so" grep -q "is not a hypervisor" "$d/e3"
  for k in 1 2 3 4; do vmc create --vm "f$k" --to "$(hyp 5)" --vguid "0x9$k" >/dev/null ||
    fail "$policy fill hypervisor 5 (VF $k)"; done
  vmc migrate --vm a --to "$(hyp 5)" 2>"$d/e4"; expect_eq "$policy full hypervisor: exit" 1 $?
  check "$policy full hypervisor: says so" grep -q "has no free VF" "$d/e4"
  vmc migrate --vm a --to "$(hyp 6)" --vf 1 2>"$d/e6"; expect_eq "$policy where it runs: exit" 1 $?
  check "$policy where it runs: says so" grep -q "runs on hypervisor $(hyp 6) already" "$d/e6"
  vmc create --vm a --to "$(hyp 3)" --vguid 0x99 2>"$d/e5"; expect_eq "$policy existing name: exit" 1 $?
  check "$policy existing name: says so" grep -q "VM 'a' exists already" "$d/e5"
  for k in 1 2 3 4; do vmc destroy --vm "f$k" >/dev/null || fail "$policy destroy f$k"; done
  check "$policy refusals (and create + destroy) left the VM state as it was" \
    cmp -s <(grep '^vm ' "$d/vms.before") <(grep '^vm ' "$d/state/vms")
  vmc list --json >"$d/list.json" || fail "$policy vm list"
  expect_eq "$policy vm list: three VMs" 3 "$(jq '.vms | length' "$d/list.json")"
  expect_eq "$policy vm list: the policy" "$policy" "$(jq -r .lid_policy "$d/list.json")"

  # A restart keeps every VM's LID and sends no LFT block (live routes kept as the switches
  # hold them).
  stop_daemon "$daemon"
  cp "$d/state/vms" "$d/vms.restart"
  start_cloudsmd_daemon "$d/sm2.log" -c "$d/sm.conf" --state-dir "$d/state"
  check "$policy restart: no LFT block sent" grep -q "lfts: [0-9]* blocks read back, 0 blocks sent" "$d/sm2.log"
  check "$policy restart: the VM state is the same" cmp -s "$d/vms.restart" "$d/state/vms"
  sim ibnetdiscover >"$d/restart.disc" 2>/dev/null
  expect_eq "$policy restart: a keeps its LID on its VF" "$lid_a" \
    "$(disc_lid "$d/restart.disc" "$(vf_guid 6 1)")"
  stop_daemon "$daemon"
  stop_ibsim
}

run_case dynamic
run_case prepopulated
finish
