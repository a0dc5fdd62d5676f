#!/usr/bin/env bash
# cloudsmd's SA against OpenSM 3.3.23's on the same ibsim fabric with the same LIDs: `saquery`
# node records, path records (--src-to-dst), port info records, link records and GUIDInfoRecords,
# and the first records of the PathRecord tables of every pair (`saquery -p`) and of all paths from
# or to one port, are compared field by field (saquery's own dumps, diffed). Then the caching flag
# (subnet_supports_sa_path_caching), partitions (a PathRecord between two partitions is refused,
# within one answered), malformed requests (answered with an error status, SA still up), and the
# queries README.md claims (every saquery query name, answered).
# ibsim hands a client only the first MAD of an RMPP reply, so most queries name one record, and
# of a table only its first records are compared (saquery_first_records).
source "$(dirname "$0")/../lib/common.sh"
require_oracles ibsim opensm saquery
CLOUDSMD=${CLOUDSM_BUILD_DIR:?}/cloudsmd
FLOOD=${CLOUDSM_BUILD_DIR}/sa_flood
cd "$WORK" || exit 1

# 4-ary-2-tree: 16 hosts H-0010000000000000 .. H-0010000000000f00 (port GUID +1), 8 switches.
"$CLOUDSM" topo gen kary 4 2 -o tree.topo || fail "topo gen"
ASK=H-0010000000000300 # the host the queries come from

queries() { # queries DIR: the same saquery calls against whichever SM runs
  local dir=$1 lids
  mkdir -p "$dir"
  mapfile -t lids < <(grep '^0x' osm/guid2lid | awk '{print $2}' | sort | awk 'NR % 3 == 1')
  local lid a b
  for lid in "${lids[@]}"; do
    SIM_HOST=$ASK sim saquery NR $((lid)) >"$dir/nr.$((lid))" 2>&1
    SIM_HOST=$ASK sim saquery PIR $((lid))/1 >"$dir/pir.$((lid))" 2>&1
    SIM_HOST=$ASK sim saquery GIR $((lid))/0 >"$dir/gir.$((lid))" 2>&1
  done
  # The table of every pair, and the paths from and to one port (as far as ibsim shows them).
  SIM_HOST=$ASK sim saquery -p 2>&1 | saquery_first_records >"$dir/pr.world"
  SIM_HOST=$ASK sim saquery -p --slid 5 2>&1 | saquery_first_records >"$dir/pr.from5"
  SIM_HOST=$ASK sim saquery -p --dlid 9 2>&1 | saquery_first_records >"$dir/pr.to9"
  for a in 1 5 9 13; do
    for b in 2 8 16 20; do
      SIM_HOST=$ASK sim saquery -p --src-to-dst $a:$b >"$dir/pr.$a.$b" 2>&1
    done
    SIM_HOST=$ASK sim saquery LR $a/1 >"$dir/lr.$a" 2>&1
  done
}

start_ibsim tree.topo
mkdir -p osm
OSM_CACHE_DIR=$WORK/osm OSM_TMP_DIR=$WORK/osm LD_PRELOAD="$UMAD2SIM" opensm -R ftree \
  -f "$WORK/osm/osm.log" >osm.out 2>&1 &
osm=$!
SIM_PIDS+=("$osm")
# OpenSM buffers its log file; its standard output says MASTER as it happens, SUBNET UP follows.
for _ in $(seq 1 150); do grep -q "Entering MASTER state" osm.out 2>/dev/null && break; sleep 0.1; done
check "OpenSM is up" grep -q "Entering MASTER state" osm.out
sleep 1
queries osm.sa
stop_daemon "$osm"
stop_ibsim

start_cloudsmd() { # start_cloudsmd CONFIG: cloudsmd as a daemon with OpenSM's LIDs
  rm -rf state && mkdir -p state && cp osm/guid2lid state/guid2lid
  log=sm-${1%.conf}.log
  LD_PRELOAD="$UMAD2SIM" "$CLOUDSMD" -R ftree -c "$1" --state-dir state --log-file "$log" >/dev/null 2>&1 &
  daemon=$!
  SIM_PIDS+=("$daemon")
  for _ in $(seq 1 100); do grep -q "waiting for SIGTERM" "$log" 2>/dev/null && break; sleep 0.1; done
  check "cloudsmd up with $1" grep -q "waiting for SIGTERM" "$log"
}
stop_cloudsmd() { stop_daemon "$daemon"; }

start_ibsim tree.topo
: >plain.conf
start_cloudsmd plain.conf
queries ours.sa
# PortInfo:LocalPortNum is the port the SM's own PortInfo Get came in through: it depends on
# each SM's discovery path (OpenSM's varies from run to run), not on the SA. Left out.
records=0 differing=0
for f in osm.sa/*; do
  name=$(basename "$f")
  records=$((records + $(grep -c "dump:" "$f")))
  if ! cmp -s <(grep -v LocalPort "$f") <(grep -v LocalPort "ours.sa/$name"); then
    differing=$((differing + 1))
    echo "--- $name differs:"; diff "$f" "ours.sa/$name" | head -8
  fi
done
expect_eq "queries whose saquery dump differs from OpenSM's" 0 "$differing"
check "OpenSM answered records to compare ($records)" test "$records" -ge 40
expect_eq "path records answered" 16 "$(cat ours.sa/pr.[0-9]* | grep -c 'PathRecord dump')"
expect_eq "path records of the tables of every pair, from and to one port" 9 \
  "$(cat ours.sa/pr.world ours.sa/pr.from5 ours.sa/pr.to9 | grep -c 'PathRecord dump')"

# The caching flag: the 3 reserved bits at offset 353 (hop_flow_raw's bits 30..28) read 1.
hop=$(SIM_HOST=$ASK sim saquery -p --src-to-dst 1:9 2>/dev/null | sed -n 's/.*hop_flow_raw\.*//p')
expect_eq "caching off: hop_flow_raw" 0x0 "$hop"
stop_cloudsmd
printf 'subnet_supports_sa_path_caching TRUE\n' >caching.conf
start_cloudsmd caching.conf
hop=$(SIM_HOST=$ASK sim saquery -p --src-to-dst 1:9 2>/dev/null | sed -n 's/.*hop_flow_raw\.*//p')
expect_eq "caching on: hop_flow_raw carries the flag" 0x40000000 "$hop"

# Malformed requests: each answered with an error status; the SA answers a good one after.
line=$(SIM_HOST=$ASK sim "$FLOOD" --malformed 40 --lids state/guid2lid 2>/dev/null)
echo "    $line"
expect_eq "malformed requests answered" 40 "$(awk '{print $4}' <<<"$line")"
expect_eq "of them with an error status" 40 "$(awk '{print $6}' <<<"$line")"
expect_eq "a good query after them" 1 "$(awk '{print $8}' <<<"$line")"
check "cloudsmd still running" kill -0 "$daemon"

# What README.md claims: every query it names as working answers (saquery exits 0), never a
# hang or an error status.
for q in -c -s -x -p -S -I NR PIR LR GIR -g -m MCMR MFTR SWIR LFTR SL2VL VLAR SMIR "--smkey 1 PKTR"; do
  CHECKS=$((CHECKS + 1))
  if SIM_HOST=$ASK timeout 20 env LD_PRELOAD=$UMAD2SIM saquery $q >"sa.claim" 2>&1; then
    echo "ok: saquery $q answered"
  else
    fail "saquery $q (README says it works): $(head -c 200 sa.claim)"
  fi
done
stop_cloudsmd

# Partitions: Blue = hosts 1, 2 (full) and 3 (limited); Red = hosts 5, 6 and 2 (full).
cat >partitions.conf <<'EOF'
Default=0x7fff : ALL=limited, SELF=full ;
Blue=0x0001 : 0x0010000000000101=full, 0x0010000000000201=full, 0x0010000000000301 ;
Red=0x0002 : 0x0010000000000501=full, 0x0010000000000601=full, 0x0010000000000201=full ;
EOF
printf 'partition_config_file %s\n' "$WORK/partitions.conf" >parts.conf
start_cloudsmd parts.conf
lid_of() { echo $(( $(awk -v g="$1" '$1 == g {print $2}' state/guid2lid) )); }
h1=$(lid_of 0x0010000000000101) h2=$(lid_of 0x0010000000000201) h3=$(lid_of 0x0010000000000301)
h5=$(lid_of 0x0010000000000501)
path() { SIM_HOST=$1 sim saquery -p --src-to-dst "$2:$3" 2>/dev/null; }
expect_eq "Blue host 1 -> Blue host 2: answered with Blue's P_Key" 0x8001 \
  "$(path H-0010000000000100 "$h1" "$h2" | sed -n 's/.*pkey\.*//p')"
expect_eq "Blue host 3 (limited) -> Blue host 1 (full): answered" 1 \
  "$(path H-0010000000000300 "$h3" "$h1" | grep -c 'PathRecord dump')"
expect_eq "Blue host 1 -> Red host 5: refused" 0 \
  "$(path H-0010000000000100 "$h1" "$h5" | grep -c 'PathRecord dump')"
expect_eq "host 2 (in both) -> Red host 5: answered with Red's P_Key" 0x8002 \
  "$(path H-0010000000000200 "$h2" "$h5" | sed -n 's/.*pkey\.*//p')"
stop_cloudsmd
finish
