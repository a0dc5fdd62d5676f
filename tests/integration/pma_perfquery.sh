#!/usr/bin/env bash
# cloudsm pma against perfquery on ibsim: counters set with the console's PerformanceSet (errors,
# the 4-bit pair, XmitWait, a data counter near saturation, a 64-bit extended counter) on a host
# port and a switch port read back the same by both. ibsim counts the PerfMgt MADs themselves in
# the data and packet counters, so those are read perfquery, cloudsm, perfquery: ours must lie
# between the two. Bad usage and a LID nobody answers fail cleanly.
source "$(dirname "$0")/../lib/common.sh"
require_oracles ibsim opensm perfquery
cd "$WORK" || exit 1

"$CLOUDSM" topo gen kary 2 2 -o t.topo || fail "topo gen"
IBSIM_CONSOLE=1 start_ibsim t.topo
run_opensm osm minhop || fail "opensm -o"
# (compared as strings: awk would compare two 64-bit GUIDs as doubles, and find neighbours equal)
lid_of() { local hex; hex=$(awk -v g="$1" '$1 "" == g "" { print $2 }' osm/guid2lid); echo $((hex)); }
host=$(lid_of 0x0010000000000001)
switch=$(lid_of 0x0020000100000000)
check "LIDs from opensm ($host, $switch)" test "$host" -gt 0 -a "$switch" -gt 0

set_counter() { ibsim_cmd "PerformanceSet \"$1\"[$2] $3"; }
set_counter H-0010000000000000 1 PortCounters.SymbolErrorCounter=77
set_counter H-0010000000000000 1 PortCounters.LinkDownedCounter=3
set_counter H-0010000000000000 1 PortCounters.LocalLinkIntegrityErrors=12
set_counter H-0010000000000000 1 PortCounters.ExcessiveBufferOverrunErrors=5
set_counter H-0010000000000000 1 PortCounters.VL15Dropped=4242
set_counter H-0010000000000000 1 PortCounters.PortXmitWait=31337
set_counter H-0010000000000000 1 PortCounters.PortXmitData=4000000000
set_counter H-0010000000000000 1 PortCountersExtended.PortRcvData=123456789012
set_counter S-0020000100000000 3 PortCounters.PortXmitDiscards=999
set_counter S-0020000100000000 3 PortCounters.PortRcvErrors=17

# value NAME FILE: a counter from perfquery's dotted lines or cloudsm's NAME:VALUE lines.
value() { sed -nE "s/^$1:\.*([0-9]+)\$/\\1/p" "$2" | head -n 1; }

compare() { # compare LID PORT [-x]: every counter cloudsm prints, against perfquery
  local lid=$1 port=$2 x=${3:-} name
  sim perfquery $x "$lid" "$port" >p1.txt 2>/dev/null || fail "perfquery $x $lid $port"
  sim "$CLOUDSM" pma "$lid" "$port" ${x:+--extended} >ours.txt 2>ours.err
  expect_eq "cloudsm pma $x $lid $port (exit status)" 0 $?
  sim perfquery $x "$lid" "$port" >p2.txt 2>/dev/null
  local n=0
  while IFS=: read -r name _; do
    [[ $name == \#* ]] && continue
    n=$((n + 1))
    local a b o
    a=$(value "$name" p1.txt) b=$(value "$name" p2.txt) o=$(value "$name" ours.txt)
    if [[ $name =~ (Data|Pkts)$ ]]; then
      check "$lid/$port $name: perfquery $a <= ours $o <= perfquery $b" \
        awk -v a="$a" -v o="$o" -v b="$b" 'BEGIN { exit !(a <= o && o <= b) }'
    else
      expect_eq "$lid/$port $name" "$a" "$o"
    fi
  done <ours.txt
  check "$lid/$port: counters compared ($n)" test "$n" -ge 8
}
compare "$host" 1
compare "$host" 1 -x
compare "$switch" 3
sim "$CLOUDSM" pma "$host" 1 --json >ours.json
expect_eq "--json: SymbolErrorCounter" 77 "$(json_get ours.json SymbolErrorCounter)"
expect_eq "--json: ExcessiveBufferOverrunErrors" 5 "$(json_get ours.json ExcessiveBufferOverrunErrors)"
expect_eq "--json: PortXmitWait" 31337 "$(json_get ours.json PortXmitWait)"

sim "$CLOUDSM" pma 999 1 --timeout 300 >/dev/null 2>nobody.err
expect_eq "a LID nobody answers: exit 1" 1 $?
check "and says so" grep -q "no answer from LID 999" nobody.err
"$CLOUDSM" pma 0 1 >/dev/null 2>&1
expect_eq "LID 0 is a usage error" 2 $?
finish
