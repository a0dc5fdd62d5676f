#!/bin/bash
# The P_Key tables OpenSM gives the ports of tests/data/lft/ft2x2.net for a partitions file:
#   opensm-pkeys.sh FILE|none [opensm options, e.g. -W]
# prints "<port GUID> <P_Key table entries>" per port (the expectations of
# tests/unit/test_partitions.c) and OpenSM's partition log lines. Runs ibsim and OpenSM from
# Debian (infiniband-diags' smpquery reads the tables); the SM port is spine0's port 0.
set -u
conf=$1; shift
here=$(cd "$(dirname "$0")" && pwd)
umad=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
work=$(mktemp -d)
export IBSIM_SOCKNAME=cs-pkeys-$$
ibsim -s -n "$here/../lft/ft2x2.net" >"$work/ibsim.log" 2>&1 &
sim=$!
for _ in $(seq 50); do grep -q ready "$work/ibsim.log" && break; sleep 0.2; done
pconf=/nonexistent/partitions.conf
[ "$conf" != none ] && pconf=$(realpath "$conf")
OSM_CACHE_DIR=$work OSM_TMP_DIR=$work LD_PRELOAD=$umad \
  opensm -D 0x07 -f "$work/osm.log" -P "$pconf" "$@" >"$work/osm.out" 2>&1 &
sm=$!
for _ in $(seq 100); do grep -q "SUBNET UP" "$work/osm.log" 2>/dev/null && break; sleep 0.2; done
sleep 1
while read -r guid lid _; do
  [ -n "$guid" ] || continue
  echo "== $guid" >>"$work/pk.txt"
  LD_PRELOAD=$umad smpquery pkeys $((lid)) >>"$work/pk.txt" 2>/dev/null
done <"$work/guid2lid"
kill "$sm"; wait "$sm" 2>/dev/null
kill -9 "$sim"; wait "$sim" 2>/dev/null
grep -E "partition|PARSE" "$work/osm.log" | sed 's/^.*-> //' | sort -u
awk '/^==/ { if (g) print g k; g = $2; k = "" }
     /^ *[0-9]+:/ { for (i = 2; i <= NF; i++) if ($i != "0x0000") k = k " " $i }
     END { print g k }' "$work/pk.txt" | sort
rm -rf "$work"
