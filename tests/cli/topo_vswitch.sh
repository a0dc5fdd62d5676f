#!/usr/bin/env bash
# topo gen --vswitch and the paper presets end to end: what topo info counts, the LIDs --lids
# gives (worked out here from the layout rule, not read back from cloudsm), and the errors.
source "$(dirname "$0")/../lib/common.sh"

# 2-ary-2-tree with 3 VFs per hypervisor: 4 vSwitches + 4 tree switches, 12 VF CAs; cables
# 4 uplinks + 4 leaf-root + 12 VF = 20; LIDs 4 x (1 PF + 3 VFs) + 4 = 20. topo info sees the
# vSwitches as the leaves (they hold the CAs), so the tree has one level more.
"$CLOUDSM" topo gen kary 2 2 --vswitch 3 --lids -o "$WORK/k2.topo" || fail "gen --vswitch"
"$CLOUDSM" topo info --json "$WORK/k2.topo" >"$WORK/k2.json" || fail "info on a vSwitch fabric"
for pair in switches:8 cas:12 hosts:12 links:20 switch_links:8 levels:3 leaves:4 lids:20 \
            max_lid:20; do
  expect_eq "vSwitch k2 ${pair%%:*}" "${pair#*:}" "$(json_get "$WORK/k2.json" "${pair%%:*}")"
done
# ... and its vswitch section sees the physical fabric: 4 hypervisors on 4 tree switches; LIDs
# 4 + 4 x 4 prepopulated, 4 + 4 at boot with dynamic LIDs; the limit (49151 - 4) / 4; in
# shared-port mode, for contrast, one LID per HCA: 49151 - 4 hypervisors, 3 VMs each.
vs() { jq -r ".vswitch.$1" "$WORK/k2.json"; }
for pair in hypervisors:4 vfs:12 vfs_per_hypervisor_min:3 vfs_per_hypervisor_max:3 \
            physical_switches:4 lids_prepopulated:20 lids_dynamic_boot:8 max_hypervisors:12286 \
            max_vms:36858 shared_port_max_hypervisors:49147 shared_port_max_vms:147441; do
  expect_eq "vswitch.${pair%%:*}" "${pair#*:}" "$(vs "${pair%%:*}")"
done
"$CLOUDSM" topo info "$WORK/k2.topo" >"$WORK/k2.txt"
check "text: the hypervisors line" grep -q "^hypervisors     4 vSwitches on 4 physical switches, 12 VFs (3 each)" "$WORK/k2.txt"
check "text: the shared-port contrast" grep -q "shared-port: 49147 hypervisors, 147441 VMs" "$WORK/k2.txt"
"$CLOUDSM" topo gen kary 2 2 -o "$WORK/plain.topo" && "$CLOUDSM" topo info --json "$WORK/plain.topo" >"$WORK/plain.json"
expect_eq "a plain fabric has no vswitch section" null "$(jq -r .vswitch "$WORK/plain.json")"
expect_eq "vSwitches have 4 ports (uplink + 3 VFs)" 4 \
  "$(grep -c '^Switch	4 "S-00100' "$WORK/k2.topo")"

# LIDs: hypervisor i's PF (vSwitch port 0, port GUID = node GUID) is i*(V+1)+1, VF k the
# (k)th after it; VF port GUID = 0x0030000000000000 + (i << 16) + (k << 8) + 1.
"$CLOUDSM" topo lids "$WORK/k2.topo" -o "$WORK/k2.guid2lid" || fail "topo lids"
wrong=0
for i in 0 1 2 3; do
  pf=$((i * 4 + 1))
  line=$(grep -i "^$(printf '0x%016x' $((0x0010000000000000 + (i << 8)))) " "$WORK/k2.guid2lid")
  [[ $line == *" $(printf '0x%04x' $pf) "* ]] || { wrong=$((wrong + 1)); echo "PF $i: $line"; }
  for k in 1 2 3; do
    guid=$(printf '0x%016x' $((0x0030000000000000 + (i << 16) + (k << 8) + 1)))
    line=$(grep -i "^$guid " "$WORK/k2.guid2lid")
    [[ $line == *" $(printf '0x%04x' $((pf + k))) "* ]] || { wrong=$((wrong + 1)); echo "VF $i.$k: $line"; }
  done
done
expect_eq "every PF and VF LID as the layout rule says" 0 "$wrong"

# The vSwitch paper's Fig. 3: PF 1, VFs 2-4, PF 5, VFs 6-8, PF 9, VFs 10-12 (by description).
"$CLOUDSM" topo gen preset vswitch-fig3 --lids -o "$WORK/fig3.topo" || fail "preset vswitch-fig3"
lid_of() { # lid_of DESC: the LID the file gives the node described DESC (switch or CA line)
  awk -v d="\"$1\"" '
    /^Switch/ && index($0, "# " d " base port 0 lid ") { sub(/.* lid /, ""); print $1; exit }
    /^Ca/ && index($0, "# " d) == length($0) - length(d) - 1 { ca = 1; next }
    ca && /^\[1\]/ { sub(/.*# lid /, ""); print $1; exit }'  "$WORK/fig3.topo"
}
got=""
for i in 0 1 2; do
  got+="$(lid_of "hyp-$i")"
  for k in 1 2 3; do got+=",$(lid_of "hyp-$i vf-$k")"; done
  got+=" "
done
expect_eq "Fig. 3 LIDs" "1,2,3,4 5,6,7,8 9,10,11,12 " "$got"
"$CLOUDSM" topo info --json "$WORK/fig3.topo" >"$WORK/fig3.json"
expect_eq "Fig. 3: 3 vSwitches + 4 tree switches" 7 "$(json_get "$WORK/fig3.json" switches)"
expect_eq "Fig. 3: 9 VFs" 9 "$(json_get "$WORK/fig3.json" cas)"

# The journal paper's Fig. 3: switches sw-1..sw-12 each once; --vswitch overrides its 2 VFs.
"$CLOUDSM" topo gen preset vswitch-journal-fig3 -o "$WORK/journal.topo" || fail "journal preset"
expect_eq "journal: 12 numbered switches" "$(seq -s ' ' 1 12)" \
  "$(grep -oE '^Switch.*# "sw-[0-9]+"' "$WORK/journal.topo" | sed -E 's/.*"sw-([0-9]+)"/\1/' |
     sort -n | tr '\n' ' ' | sed 's/ $//')"
expect_eq "journal: 8 hypervisors x 2 VFs" 16 "$(grep -c '^Ca	1 ' "$WORK/journal.topo")"
"$CLOUDSM" topo gen preset vswitch-journal-fig3 --vswitch 5 | grep -c '^Ca	1 ' >"$WORK/n"
expect_eq "journal with --vswitch 5" 40 "$(cat "$WORK/n")"

# Help teaches the option and lists the presets from the library's table.
"$CLOUDSM" topo gen --help >"$WORK/help.txt"
check "help explains --vswitch" grep -q -- "--vswitch V" "$WORK/help.txt"
check "help lists vswitch-fig3" grep -qE '^  vswitch-fig3 +vSwitch paper' "$WORK/help.txt"
check "help lists vswitch-journal-fig3" grep -qE '^  vswitch-journal-fig3 ' "$WORK/help.txt"

# Errors: usage (2) for bad values, failure (1) for a tree that cannot hold vSwitches; -o never
# leaves a file behind.
expect_status() { # expect_status WHAT STATUS PATTERN ARGS...
  local what=$1 status=$2 pattern=$3; shift 3
  "$CLOUDSM" topo gen "$@" -o "$WORK/bad.topo" 2>"$WORK/err"
  expect_eq "$what: exit status" "$status" $?
  check "$what: says why" grep -q -- "$pattern" "$WORK/err"
  check "$what: nothing written" test ! -e "$WORK/bad.topo"
}
expect_status "--vswitch 0" 2 "1 to 126" kary 2 2 --vswitch 0
expect_status "--vswitch 127" 2 "1 to 126" kary 2 2 --vswitch 127
expect_status "dual-homed hosts" 1 "w1\*p1 = 1" xgft "2;4,4;2,2" --vswitch 2
expect_status "parallel host cables" 1 "w1\*p1 = 1" pgft "2;4,4;1,2;2,1" --vswitch 2
expect_status "LID budget" 1 "hypervisors x (1 PF + 75 VFs)" xgft "2;18,36;1,18" --vswitch 75
expect_status "too many --hosts" 1 "only 4 host slots" kary 2 2 --hosts 5
expect_status "unknown preset" 2 "known: vswitch-fig3, vswitch-journal-fig3" preset fig-99
expect_status "preset with --radix" 2 "only --vswitch, --lids and -o" preset vswitch-fig3 --radix 8
expect_status "preset without a name" 2 "one name" preset
finish
