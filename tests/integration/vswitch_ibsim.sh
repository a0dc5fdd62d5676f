#!/usr/bin/env bash
# vSwitch fabrics against the real thing:
#  1. ibsim loads what `cloudsm topo gen --vswitch` writes, and ibnetdiscover finds exactly our
#     nodes (vSwitches as switches, VFs as one-port CAs), GUIDs and cables.
#  2. OpenSM 3.3.23 brings the vSwitch paper's Fig. 3 preset up with the LIDs we planned
#     (PF 1, VFs 2-4, ...): with minhop and with ftree, every cabled port ends ACTIVE. Whether
#     ftree accepts the fabric or falls back is printed, not asserted (a fact about OpenSM).
# OpenSM runs from a VF (SIM_HOST): ibsim attaches clients to the first node by default, here
# a vSwitch, and OpenSM 3.3.23 on a switch's port 0 under umad2sim never gets going.
source "$(dirname "$0")/../lib/common.sh"
require_oracles ibsim ibnetdiscover opensm iblinkinfo

# 4-ary-2-tree, 3 hypervisors per leaf, 3 VFs each: 12 vSwitches + 8 tree switches, 36 VFs;
# cables 12 uplinks + 4 leaves x 4 up + 36 VF = 64.
"$CLOUDSM" topo gen kary 4 2 --hosts-per-leaf 3 --vswitch 3 -o "$WORK/vs.topo" || fail "topo gen"
"$CLOUDSM" topo info --json "$WORK/vs.topo" >"$WORK/planned.json"
expect_eq "planned switches" 20 "$(json_get "$WORK/planned.json" switches)"
expect_eq "planned CAs" 36 "$(json_get "$WORK/planned.json" cas)"
expect_eq "planned links" 64 "$(json_get "$WORK/planned.json" links)"

start_ibsim "$WORK/vs.topo"
sim ibnetdiscover >"$WORK/found.topo" 2>"$WORK/ibnetdiscover.err" || fail "ibnetdiscover"
"$CLOUDSM" topo diff "$WORK/vs.topo" "$WORK/found.topo" >"$WORK/diff.txt"
expect_eq "ibnetdiscover finds exactly the generated vSwitch fabric (topo diff)" 0 $?
cat "$WORK/diff.txt"
"$CLOUDSM" topo info --json "$WORK/found.topo" >"$WORK/found.json"
for key in switches cas links switch_links levels leaves; do
  expect_eq "discovered $key" "$(json_get "$WORK/planned.json" $key)" "$(json_get "$WORK/found.json" $key)"
done
# Independent of our reader: ibnetdiscover's own lines for the vSwitches and VFs.
expect_eq "ibnetdiscover: 12 vSwitches of 4 ports" 12 "$(grep -c '^Switch	4 "S-00100' "$WORK/found.topo")"
expect_eq "ibnetdiscover: 36 one-port VF CAs" 36 "$(grep -c '^Ca	1 "H-00300' "$WORK/found.topo")"
stop_ibsim

# OpenSM with our LIDs preloaded as its guid2lid cache: route_with_opensm NAME TOPOLOGY ENGINE.
route_with_opensm() {
  local name=$1 topo=$2 engine=$3 dir="$WORK/$1-$3" links
  links=$("$CLOUDSM" topo info --json "$topo" | sed -nE 's/^  "links": ([0-9]+),?$/\1/p')
  start_ibsim "$topo"
  mkdir -p "$dir"
  "$CLOUDSM" topo lids "$topo" -o "$dir/planned.guid2lid" || fail "$name: topo lids"
  cp "$dir/planned.guid2lid" "$dir/guid2lid"
  run_opensm "$dir" "$engine" || fail "$name $engine: opensm exited non-zero"
  check "$name $engine: SUBNET UP" grep -q "SUBNET UP" "$dir/osm.log"
  sim iblinkinfo >"$dir/links.txt" 2>/dev/null || fail "$name $engine: iblinkinfo"
  # iblinkinfo prints every cabled port, switch and CA ends alike: 2 per cable.
  expect_eq "$name $engine: every cabled port ACTIVE" $((2 * links)) "$(grep -c Active "$dir/links.txt")"
  check "$name $engine: OpenSM kept the planned LIDs" \
    cmp -s <(grep . "$dir/planned.guid2lid" | sort) <(grep . "$dir/guid2lid" | sort)
  stop_ibsim
  if [[ $engine == ftree ]]; then
    if grep -q "ftree tables configured on all switches" "$dir/osm.log"; then
      echo "note: $name: OpenSM's ftree accepts it ($(grep -o 'FatTree rank.*' "$dir/osm.log"))"
    else
      echo "note: $name: OpenSM's ftree refuses it and falls back to minhop:"
      grep -E "ERR AB|ftree:" "$dir/osm.log" | sed 's/^.*-> /  /' | head -3
    fi
  fi
}

# Fig. 3 with --lids: PF 1, VFs 2-4, PF 5, VFs 6-8, PF 9, VFs 10-12, switches 13-16.
"$CLOUDSM" topo gen preset vswitch-fig3 --lids -o "$WORK/fig3.topo" || fail "preset"
check "Fig. 3 planned: VF 3 of hypervisor 2 has LID 12" \
  grep -qiE '^0x0030000000020301 0x000c 0x000c$' <("$CLOUDSM" topo lids "$WORK/fig3.topo")
export SIM_HOST=H-0030000000000100 # VF 1 of hypervisor 0
route_with_opensm fig3 "$WORK/fig3.topo" minhop
route_with_opensm fig3 "$WORK/fig3.topo" ftree
route_with_opensm k4-vswitch "$WORK/vs.topo" ftree
finish
