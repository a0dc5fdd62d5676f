#!/usr/bin/env bash
# cloudsm vm plan: VM create / migrate / destroy on the vSwitch journal's Fig. 3 fabric
# (topo gen preset vswitch-journal-fig3, 12 switches sw-1..sw-12, 8 hypervisors x 2 VFs, ftree
# initial routing): ItRC vs FTreeMinRC on a leaf-local migration (Paper V, thesis lines
# 6382-6392), port 255 = exactly n' more SMPs (Paper II, thesis lines 3834-3848), the phase
# check finding the credit loop a cross-pod swap can close and none with port 255 first, the
# dynamic lifecycle (create copies on every switch, destroy frees the LID), the written files
# read back, help, usage and input errors.
source "$(dirname "$0")/../lib/common.sh"

run() { # run EXPECTED_STATUS CMD...: stdout in $WORK/out, stderr in $WORK/err
  local want=$1; shift
  "$@" >"$WORK/out" 2>"$WORK/err"
  local got=$?
  CHECKS=$((CHECKS + 1))
  if [[ $got -eq $want ]]; then echo "ok: exit $got: $*"; else fail "exit $got (want $want): $*"; cat "$WORK/err"; fi
}

HYP0=0x0010000000000000 HYP1=0x0010000000000100 HYP7=0x0010000000000700
"$CLOUDSM" topo gen preset vswitch-journal-fig3 --lids -o "$WORK/f.topo" || fail "topo gen"
"$CLOUDSM" route -R ftree "$WORK/f.topo" -o "$WORK/lfts" >/dev/null || fail "route"
cat >"$WORK/vms" <<EOF
lid_policy prepopulated
vm a vguid=0x0200000000000001 lid=2 hypervisor=$HYP0 vf=1
vm b vguid=0x0200000000000002 lid=20 hypervisor=0x0010000000000600 vf=1
vm c vguid=0x0200000000000003 lid=9 hypervisor=0x0010000000000200 vf=2
EOF
plan() { "$CLOUDSM" vm plan "$1" "$WORK/f.topo" "${2:-$WORK/lfts}" "${3:-$WORK/vms}" "${@:4}"; }

# ---- help and usage ----
run 0 "$CLOUDSM" vm plan --help
check "help has a usage line" grep -q "^usage: cloudsm vm plan create|destroy|migrate" "$WORK/out"
check "help has examples" grep -q "^examples:" "$WORK/out"
run 0 "$CLOUDSM" help
check "overview lists vm plan" grep -q "^  vm plan " "$WORK/out"
run 2 plan migrate "$WORK/lfts" "$WORK/vms" --vm a
check "migrate wants --to" grep -q "migrate wants --to" "$WORK/err"
run 2 plan move "$WORK/lfts" "$WORK/vms" --vm a --to $HYP1
run 2 plan migrate "$WORK/lfts" "$WORK/vms" --vm a --to $HYP1 --method fastest
run 2 plan create "$WORK/lfts" "$WORK/vms" --vm d --to $HYP1

# ---- leaf-local migration: hypervisor 1 to 2 on leaf sw-1 (VF LIDs 2 and 6) ----
run 0 plan migrate "$WORK/lfts" "$WORK/vms" --vm a --to $HYP1 --vf 2 --method itrc --json
expect_eq "itrc visits every physical switch" 12 "$(json_get "$WORK/out" switches_selected)"
expect_eq "itrc updates 5 of 12 (ftree sends LIDs 2 and 6 apart on 4 more)" 5 \
  "$(json_get "$WORK/out" switches_updated)"
expect_eq "itrc: one block each (LIDs 2 and 6 in block 0)" 5 "$(json_get "$WORK/out" lft_smps)"
expect_eq "LID at both ends + vGUID" 3 "$(json_get "$WORK/out" hypervisor_smps)"
expect_eq "total" 8 "$(json_get "$WORK/out" total_smps)"
expect_eq "method" itrc "$(json_get "$WORK/out" method)"
expect_eq "lid_policy" prepopulated "$(json_get "$WORK/out" lid_policy)"
run 0 plan migrate "$WORK/lfts" "$WORK/vms" --vm a --to $HYP1 --vf 2 --method ftreeminrc --json
expect_eq "ftreeminrc: the leaf only" 1 "$(json_get "$WORK/out" switches_selected)"
expect_eq "ftreeminrc: 1 LFT SMP" 1 "$(json_get "$WORK/out" lft_smps)"
check "that SMP goes to sw-1" grep -q '"desc": "sw-1"' "$WORK/out"
run 0 plan migrate "$WORK/lfts" "$WORK/vms" --vm a --to $HYP1 --vf 2 --method itrc --port255 --json
expect_eq "port 255: n' = 5 more SMPs" 5 "$(json_get "$WORK/out" port255_smps)"
expect_eq "port 255: total" 13 "$(json_get "$WORK/out" total_smps)"

# text: SMPs per switch and block, in order
run 0 plan migrate "$WORK/lfts" "$WORK/vms" --vm a --to $HYP1 --vf 2 --method ftreeminrc --port255
check "text: the invalidation first" grep -qE "^ +1  port255 +switch 0x0020000100000000 'sw-1' block 0" "$WORK/out"
check "text: destination hypervisor next" grep -qE "^ +2  lid_set +hypervisor $HYP1 'hyp-1' VF 2 LID 2" "$WORK/out"
check "text: the source last" grep -qE "^ +5  lid_set +hypervisor $HYP0 'hyp-0' VF 1 LID 6" "$WORK/out"

# ---- cross-pod migration to hypervisor 7: the transition check ----
run 3 plan migrate "$WORK/lfts" "$WORK/vms" --vm a --to $HYP7 --vf 2 --check-transition \
  -o "$WORK/never" --state-out "$WORK/never.vms"
check "without port 255: a credit loop in the LFT phase" grep -q "CREDIT LOOP possible in phase 2" "$WORK/out"
check "nothing written on exit 3" test ! -e "$WORK/never" -a ! -e "$WORK/never.vms"
run 0 plan migrate "$WORK/lfts" "$WORK/vms" --vm a --to $HYP7 --vf 2 --check-transition --port255 \
  --method ftreeminrc -o "$WORK/lfts2" --state-out "$WORK/vms2" --json
check "with port 255 first: no credit loop" grep -q '"credit_loop": false' "$WORK/out"
expect_eq "ftreeminrc across the pods: 2 leaves, 4 + 4 above" 10 "$(json_get "$WORK/out" switches_selected)"
check "the VM moved, kept its LID" grep -q "^vm a vguid=0x0200000000000001 lid=2 hypervisor=$HYP7 vf=2" "$WORK/vms2"
"$CLOUDSM" topo gen preset vswitch-journal-fig3 -o "$WORK/nolids.topo" || fail "topo gen"
run 0 "$CLOUDSM" lft check "$WORK/nolids.topo" "$WORK/lfts2"
check "the new tables route every pair (LIDs from the new dump)" grep -q "^result *ok" "$WORK/out"
run 0 plan migrate "$WORK/lfts2" "$WORK/vms2" --vm a --to $HYP0 --vf 1 --json
check "and back: the written files are read again" grep -q '"switches_updated"' "$WORK/out"

# ---- dynamic LIDs: create, migrate, destroy ----
printf 'lid_policy dynamic\n' >"$WORK/dyn"
run 0 plan create "$WORK/lfts" "$WORK/dyn" --vm d --to $HYP7 --vguid 0x0200000000000009 \
  -o "$WORK/lfts3" --state-out "$WORK/dyn3" --json
expect_eq "create: the lowest free LID (idle VFs hold none)" 2 "$(json_get "$WORK/out" lid)"
expect_eq "create visits every physical switch" 12 "$(json_get "$WORK/out" switches_selected)"
expect_eq "create: LID set + vGUID" 2 "$(json_get "$WORK/out" hypervisor_smps)"
run 0 plan migrate "$WORK/lfts3" "$WORK/dyn3" --vm d --to $HYP0 --method ftreeminrc --json \
  -o "$WORK/lfts4" --state-out "$WORK/dyn4"
expect_eq "copy: one block per updated switch" "$(json_get "$WORK/out" switches_updated)" \
  "$(json_get "$WORK/out" lft_smps)"
run 0 plan destroy "$WORK/lfts4" "$WORK/dyn4" --vm d --json --state-out "$WORK/dyn5"
expect_eq "destroy: no LFT SMP" 0 "$(json_get "$WORK/out" lft_smps)"
expect_eq "destroy: LID unset + vGUID unset" 2 "$(json_get "$WORK/out" hypervisor_smps)"
check "destroy: the state is empty" test "$(grep -c '^vm ' "$WORK/dyn5")" -eq 0
long=$(printf 'v%.0s' {1..64})
for state in dyn sp; do # a name the state file could not hold, in either mode
  [[ $state == sp ]] && printf 'lid_policy shared-port\n' >"$WORK/sp"
  run 1 plan create "$WORK/lfts" "$WORK/$state" --vm "$long" --to $HYP7 --vguid 0x0200000000000009 \
    --state-out "$WORK/never-$state"
  check "$state: a 64-character name is refused" grep -q "is longer than 63 characters" "$WORK/err"
  check "$state: nothing written" test ! -e "$WORK/never-$state"
done

# ---- Paper II's Fig. 3/5 fabric (vswitch-fig3: PFs 1, 5, 9, VFs 2-4, 6-8, 10-12; ftree falls
# back to minhop on it, as OpenSM's does) ----
"$CLOUDSM" topo gen preset vswitch-fig3 --lids -o "$WORK/f5.topo" || fail "topo gen"
"$CLOUDSM" route -R ftree "$WORK/f5.topo" -o "$WORK/f5.lfts" 2>/dev/null >/dev/null || fail "route"
printf 'lid_policy prepopulated\nvm vm1 vguid=0x0200000000000001 lid=2 hypervisor=%s vf=1\n' $HYP0 >"$WORK/f5.vms"
f5() { "$CLOUDSM" vm plan migrate "$WORK/f5.topo" "$WORK/f5.lfts" "$WORK/f5.vms" --vm vm1 "$@"; }
# Fig. 5 (thesis lines 3576-3595): VM1 (LID 2) to VF3 of hypervisor 3 (LID 12): one SMP per
# switch, block 0 carrying both entries
run 0 f5 --to 0x0010000000000200 --vf 3
check "Fig. 5: LIDs 2 and 12 in one block, 2 entries per SMP" \
  test "$(grep -c "lft .* block 0 (LIDs 0-63): LID 2, 2 entries" "$WORK/out")" -eq 4
check "Fig. 5: the VF left takes LID 12" grep -qE "lid_set +hypervisor $HYP0 'hyp-0' VF 1 LID 12" "$WORK/out"
# n' = 1 (thesis lines 3819-3824): to a VF of hypervisor 2 that every switch but the leaf already
# routes like LID 2 (with these tables: LID 7, VF 2)
run 0 f5 --to 0x0010000000000100 --vf 2 --json
expect_eq "n' = 1: only the leaf changes" 1 "$(json_get "$WORK/out" switches_updated)"
expect_eq "n' = 1 with ItRC visiting all 4" 4 "$(json_get "$WORK/out" switches_selected)"

# ---- input errors ----
printf 'lid_policy prepopulated\nvm a vguid=1 lid=3 hypervisor=%s vf=1\n' $HYP0 >"$WORK/bad.vms"
run 1 plan migrate "$WORK/lfts" "$WORK/bad.vms" --vm a --to $HYP1
check "a VM whose LID is not its VF's: file:line" grep -q "bad.vms:2:" "$WORK/err"
run 1 plan migrate "$WORK/lfts" "$WORK/vms" --vm nobody --to $HYP1
check "an unknown VM" grep -q "no VM 'nobody'" "$WORK/err"
run 1 plan migrate "$WORK/lfts" "$WORK/vms" --vm a --to 0x0020000100000000
check "a destination that is no hypervisor" grep -q "is not a hypervisor" "$WORK/err"
sed 's/^0x0002 001/0x0002 zzz/' "$WORK/lfts" >"$WORK/bad.lfts"
run 1 plan migrate "$WORK/bad.lfts" "$WORK/vms" --vm a --to $HYP1 -o "$WORK/never2"
check "a bad dump: file:line" grep -qE "bad.lfts:[0-9]+:" "$WORK/err"
check "nothing written on error" test ! -e "$WORK/never2"

# ---- shared port, for contrast: a plain 2-ary-2-tree, VMs on HCAs sharing their LIDs ----
"$CLOUDSM" topo gen kary 2 2 --lids -o "$WORK/p.topo" || fail "topo gen plain"
"$CLOUDSM" route -R ftree "$WORK/p.topo" -o "$WORK/p.lfts" >/dev/null || fail "route plain"
HCA0=0x0010000000000000 HCA3=0x0010000000000300
printf 'lid_policy shared-port\n' >"$WORK/p.vms"
splan() { "$CLOUDSM" vm plan "$1" "$WORK/p.topo" "$WORK/p.lfts" "$WORK/p.vms" "${@:2}"; }
for vm in x:0x0300000000000001 y:0x0300000000000002; do
  run 0 splan create --vm ${vm%%:*} --to $HCA0 --vguid ${vm#*:} \
    --state-out "$WORK/p.vms" --json
  expect_eq "shared-port create ${vm%%:*}: one vGUID SMP" 1 "$(json_get "$WORK/out" total_smps)"
done
expect_eq "both VMs have HCA 0's LID" 2 "$(grep -c "lid=1 hypervisor=$HCA0" "$WORK/p.vms")"
run 0 splan migrate --vm y --to $HCA3 --method ftreeminrc -o "$WORK/p.new" \
  --state-out "$WORK/p.vms" --json
expect_eq "shared-port migrate: no LFT SMP" 0 "$(json_get "$WORK/out" lft_smps)"
expect_eq "shared-port migrate: vGUID set and unset" 2 "$(json_get "$WORK/out" hypervisor_smps)"
expect_eq "the VM's LID changes" true "$(json_get "$WORK/out" lid_changed)"
expect_eq "to the destination HCA's" "1 4" \
  "$(jq -r '"\(.lid_before) \(.lid)"' "$WORK/out")"
check "the tables are the old ones" cmp -s "$WORK/p.lfts" "$WORK/p.new"
check "the state says so" grep -q "^vm y .* lid=4 hypervisor=$HCA3 vf=1$" "$WORK/p.vms"
run 0 splan migrate --vm x --to $HCA3
check "text: the LID change" grep -q "VM LID        1 -> 4: changed" "$WORK/out"
run 1 splan migrate --vm x --to 0x0020000100000000
check "a switch is no HCA" grep -q "is not a cabled CA (HCA)" "$WORK/err"
run 1 "$CLOUDSM" route -R vftree "$WORK/p.topo" --vms "$WORK/p.vms" -o "$WORK/never3"
check "vftree refuses a shared-port state" grep -q "shared-port VM state" "$WORK/err"
check "and writes nothing" test ! -e "$WORK/never3"

finish
