#!/usr/bin/env bash
# cloudsm route -R vftree (vSwitchFatTree) on generated vSwitch fabrics: with one VF per
# hypervisor every VM LID and every physical switch LID has ftree's entry on every switch (only
# the PF LIDs differ); --vms routes the VMs it names, an idle VF with a LID takes its PF's
# path; a bad VM state file is refused with file:line, exit 1 and nothing written.
source "$(dirname "$0")/../lib/common.sh"

check "route --help lists vftree" sh -c "'$CLOUDSM' route --help | grep -q '^ *vftree'"

# 2-ary-3-tree, one VF per hypervisor.
"$CLOUDSM" topo gen kary 2 3 --vswitch 1 --lids -o "$WORK/one.topo" || fail "gen --vswitch 1"
"$CLOUDSM" route -R ftree "$WORK/one.topo" -o "$WORK/one-ftree.lfts" || fail "ftree"
"$CLOUDSM" route -R vftree "$WORK/one.topo" -o "$WORK/one-vftree.lfts" --json \
  >"$WORK/one.json" || fail "vftree"
check "the JSON names vftree" grep -q '"engine": *"vftree"' "$WORK/one.json"
check "the tables are valid" "$CLOUDSM" lft check "$WORK/one.topo" "$WORK/one-vftree.lfts"
# Entries by kind: VFs ("vf-"), physical switches ("sw-"), PFs ("'hyp-N'").
entries() { grep -E "$2" "$1"; }
vf="Channel Adapter portguid .* 'hyp-[0-9]+ vf-[0-9]+'$"
physical="Switch portguid .* 'sw-"
check "VM LIDs: ftree's entries" cmp -s <(entries "$WORK/one-ftree.lfts" "$vf") \
  <(entries "$WORK/one-vftree.lfts" "$vf")
expect_eq "VM entries compared (8 VMs x 20 switches)" 160 \
  "$(entries "$WORK/one-vftree.lfts" "$vf" | wc -l)"
check "physical switch LIDs: ftree's entries" cmp -s \
  <(entries "$WORK/one-ftree.lfts" "$physical") <(entries "$WORK/one-vftree.lfts" "$physical")

# Three VFs per hypervisor; VMs on hypervisor 0 (VFs 1, 2) and 1 (VF 3); LIDs: hypervisor i's
# PF is 4i+1, its VF k 4i+1+k.
"$CLOUDSM" topo gen kary 2 3 --vswitch 3 --lids -o "$WORK/three.topo" || fail "gen --vswitch 3"
cat >"$WORK/vms" <<'EOF'
# cloudsm VM state
lid_policy prepopulated
vm a vguid=0x0200000000000001 lid=2 hypervisor=0x0010000000000000 vf=1
vm b vguid=0x0200000000000002 lid=3 hypervisor=0x0010000000000000 vf=2
vm c vguid=0x0200000000000003 lid=8 hypervisor=0x0010000000000100 vf=3
EOF
"$CLOUDSM" route -R vftree --vms "$WORK/vms" "$WORK/three.topo" -o "$WORK/three.lfts" ||
  fail "vftree --vms"
check "with --vms: valid" "$CLOUDSM" lft check "$WORK/three.topo" "$WORK/three.lfts"
# Hypervisor 1's idle VF 1 (LID 6) has its PF's (LID 5) entry on every switch but hyp-1.
entry() { awk -v lid="$(printf '0x%04x' "$2")" '/^Unicast/ {sw=$0} $1 == lid && sw !~ /hyp-1.\)/ {print $2}' "$1"; }
check "an idle VF takes its PF's path" cmp -s <(entry "$WORK/three.lfts" 5) \
  <(entry "$WORK/three.lfts" 6)
expect_eq "on every switch but its vSwitch" 19 "$(entry "$WORK/three.lfts" 6 | wc -l)"

# Bad files: a VF out of range on line 3; a hypervisor the fabric does not have.
printf '# VMs\nlid_policy prepopulated\nvm a vguid=0x2 lid=2 hypervisor=0x0010000000000000 vf=0\n' \
  >"$WORK/bad.vms"
"$CLOUDSM" route -R vftree --vms "$WORK/bad.vms" "$WORK/three.topo" -o "$WORK/bad.lfts" \
  2>"$WORK/bad.err"
expect_eq "a bad VM state: exit 1" 1 $?
check "with file:line" grep -q "bad.vms:3:" "$WORK/bad.err"
check "and writes nothing" test ! -e "$WORK/bad.lfts"
printf 'vm a vguid=0x2 lid=2 hypervisor=0x42 vf=1\n' >"$WORK/stranger.vms"
"$CLOUDSM" route -R vftree --vms "$WORK/stranger.vms" "$WORK/three.topo" -o "$WORK/bad.lfts" \
  2>"$WORK/stranger.err"
expect_eq "a VM on a hypervisor the fabric lacks: exit 1" 1 $?
check "says so" grep -q "is not a vSwitch of the fabric" "$WORK/stranger.err"
check "and writes nothing" test ! -e "$WORK/bad.lfts"

finish
