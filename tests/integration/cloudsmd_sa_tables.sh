#!/usr/bin/env bash
# The SA's records of the switches' and ports' tables against OpenSM 3.3.23's on the same ibsim
# fabric with the same LIDs: `saquery SWIR`, `LFTR`, `PKTR` (with the SA key: a trusted query),
# `VLAR`, whole and narrowed by the LID, port and block saquery offers, are compared field by
# field (saquery's own dumps, diffed). ibsim hands a client only the first MAD of an RMPP reply,
# so a table shows its first records and narrowed queries show the rest. A P_KeyTableRecord
# query without the key is refused by both (REQ_INVALID).
source "$(dirname "$0")/../lib/common.sh"
require_oracles ibsim opensm saquery
CLOUDSMD=${CLOUDSM_BUILD_DIR:?}/cloudsmd
cd "$WORK" || exit 1

# 2-ary-2-tree: 4 hosts H-0010000000000000 .. H-0010000000000300 (port GUID +1), 4 switches.
"$CLOUDSM" topo gen kary 2 2 -o tree.topo || fail "topo gen"
ASK=H-0010000000000100 # the host the queries come from

# Only the records ibsim lets a client see intact: a dump whose bytes lie beyond the first MAD
# (200 bytes of records) is garbage on both sides, so each query's output is cut to the records
# that fit: SIZE is the record's stride in bytes.
first_mad() { # first_mad SIZE: saquery's dumps on stdin, the ones within the first MAD
  awk -v n=$((200 / $1)) '/dump:/ { k++ } k <= n'
}

queries() { # queries DIR: the same saquery calls against whichever SM runs
  local dir=$1 lid sw ca
  mkdir -p "$dir"
  q() { local name=$1 size=$2; shift 2; SIM_HOST=$ASK sim saquery "$@" 2>&1 | first_mad "$size" >"$dir/$name"; }
  q swir 24 SWIR
  q lftr 72 LFTR
  q vlar 72 VLAR
  q pktr 72 --smkey 1 PKTR
  q pktr.untrusted 72 PKTR
  for lid in $(seq 1 8); do
    q "swir.$lid" 24 SWIR "$lid"
    q "lftr.$lid" 72 LFTR "$lid"
    q "lftr.$lid.0" 72 LFTR "$lid/0"
    q "lftr.$lid.1" 72 LFTR "$lid/1"
    q "vlar.$lid" 72 VLAR "$lid"
    q "pktr.$lid" 72 --smkey 1 PKTR "$lid"
    for port in 0 1 3 5; do
      q "pktr.$lid.$port" 72 --smkey 1 PKTR "$lid/$port"
      q "pktr.$lid.$port.0" 72 --smkey 1 PKTR "$lid/$port/0"
      q "pktr.$lid.$port.1" 72 --smkey 1 PKTR "$lid/$port/1"
      for block in 1 4 5; do
        q "vlar.$lid.$port.$block" 72 VLAR "$lid/$port/$block"
      done
    done
  done
}

start_ibsim tree.topo
start_opensm_daemon osm -R ftree
queries osm.sa
osm=${SIM_PIDS[-1]}
stop_daemon "$osm"
stop_ibsim

start_ibsim tree.topo
mkdir -p state && cp osm/guid2lid state/guid2lid
printf 'routing_engine ftree\n' >plain.conf # the same engine as OpenSM's -R ftree
start_cloudsmd_daemon sm.log -c plain.conf --state-dir state
queries ours.sa

# Where cloudsm knows less than OpenSM, by design (docs/sm/sa.md "Switch and port tables"):
# - P_Key tables: cloudsm reads those of CA ports, switch port 0 (its PartitionCap: one block on
#   ibsim) and switch ports facing CAs; OpenSM also those of switch ports between switches and a
#   switch port 0 sized by its PartitionEnforcementCap. There cloudsm answers a subset of
#   OpenSM's records (never a record OpenSM does not have).
# - SwitchInfo: OpenSM programs LifeTimeValue (18) and clears PortStateChange, cloudsm shows the
#   byte as the switch answered it; saquery prints MulticastFDBTop only when ClassPortInfo says
#   IsMulticastFDBTopSupported, which cloudsm (without multicast) does not.
subset_only() { # subset_only NAME: a P_Key query touching tables only OpenSM reads
  [[ $1 =~ ^pktr\.(3|5)(\.|$) || $1 =~ ^pktr\.(2|4)\.3 || $1 =~ ^pktr\.[2-5]\.0\.1$ ]]
}
one_line_records() { awk '/dump:/ { if (r != "") print r; r = "" } { r = r $0 "|" } END { if (r != "") print r }' "$1" | sort; }
records=0 differing=0 compared=0 subsets=0
for f in osm.sa/*; do
  name=$(basename "$f")
  compared=$((compared + 1))
  records=$((records + $(grep -c "dump:" "$f")))
  ours=ours.sa/$name theirs=$f
  if [[ $name == swir* ]]; then
    grep -v -e LifeTimeValue -e MulticastFDBTop "$f" >"$f.cmp"; theirs=$f.cmp
    grep -v -e LifeTimeValue "ours.sa/$name" >"ours.sa/$name.cmp"; ours=ours.sa/$name.cmp
  fi
  if subset_only "$name"; then
    subsets=$((subsets + 1))
    if [[ -n $(comm -13 <(one_line_records "$theirs") <(one_line_records "$ours")) ]]; then
      differing=$((differing + 1))
      echo "--- $name: a record OpenSM does not have:"; diff "$theirs" "$ours" | head -8
    fi
  elif ! cmp -s "$theirs" "$ours"; then
    differing=$((differing + 1))
    echo "--- $name differs:"; diff "$theirs" "$ours" | head -8
  fi
done
echo "    $compared queries ($subsets compared as subsets), $records records from OpenSM"
expect_eq "queries whose saquery dump differs from OpenSM's" 0 "$differing"
check "OpenSM answered records to compare ($records)" test "$records" -ge 200
for kind in SwitchInfoRecord "LFT Record" VLArbTableRecord PKeyTableRecord; do
  check "records of $kind compared" grep -q "$kind dump" osm.sa/*
done
check "P_KeyTableRecords refused without the SA key" grep -q "SA_ERR_REQ_INVALID" ours.sa/pktr.untrusted
check "SwitchInfoRecords answered by cloudsm" grep -q "LinearFDBTop.*0x8" ours.sa/swir
finish
