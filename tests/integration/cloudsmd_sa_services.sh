#!/usr/bin/env bash
# ServiceRecords: the same registrations, replacements, refusals, reads and deletions (SubnAdmSet,
# SubnAdmDelete, SubnAdmGet of a ServiceRecord, by tests/lib/sa_service.c) against OpenSM 3.3.23
# and cloudsmd on one ibsim fabric with the same LIDs; every answer and `saquery -S` are compared
# line for line (ibsim shows a client the first MAD of a GetTableResp: one ServiceRecord, so
# `saquery -S` is read after each change of the order). Then, on cloudsmd: a lease of 2 s ends (the record is gone after 3 s), an
# infinite one does not, and a sweep does not lose the services.
source "$(dirname "$0")/../lib/common.sh"
require_oracles ibsim opensm saquery
SA_SERVICE=${CLOUDSM_BUILD_DIR:?}/sa_service
cd "$WORK" || exit 1

"$CLOUDSM" topo gen kary 2 2 -o tree.topo || fail "topo gen"
A=H-0010000000000100 B=H-0010000000000200 # hosts 1 and 2: port GUIDs ...0101, ...0201
GA=fe80::10:0:0:101 GB=fe80::10:0:0:201

svc() { local host=$1; shift; SIM_HOST=$host sim "$SA_SERVICE" "$@" 2>&1; }

session() { # session DIR: the same requests against whichever SM runs
  local dir=$1
  mkdir -p "$dir"
  {
    svc $A set 0x10 $GA name=alpha lease=3600
    svc $A set 0x11 $GA name=beta
    svc $B set 0x12 $GB name=gamma pkey=0xffff key=0x1234 data8=7
    svc $B --smkey 1 get 0x12 $GB                  # trusted: the ServiceKey shows
    svc $A get 0x12 $GB                            # untrusted: it reads 0
    svc $A set 0x10 $GA name=alpha2 lease=7200     # same ID, GID, P_Key: replaced
    svc $A get 0x10 $GA
    svc $A set 0x10 $GA name=other pkey=0x7fff     # another P_Key: another record
    svc $A get 0x10 $GA pkey=0x7fff
    svc $A --mask 0x1 set 0x13 $GA name=nogid      # no GID in the mask: refused
    svc $A set 0x14 $GA pkey=0x8001 name=notmine   # a P_Key the requester lacks: refused
    svc $A set 0x15 fe80::99:0:0:1 pkey=0xffff     # the GID's port does not exist: refused
    svc $A get 0x11 $GA
    svc $A delete 0x11 $GA                         # removed, answered with the record
    svc $A get 0x11 $GA                            # gone
    svc $A delete 0x11 $GA                         # nothing left to remove
    svc $A get 0x99 $GA                            # never there
  } >"$dir/answers"
  SIM_HOST=$A sim saquery -S 2>&1 | awk '/ServiceRecord dump/ { n++ } n <= 1' >"$dir/saquery-S"
  # The oldest replaced: it keeps its place (the newest stays first).
  svc $B set 0x12 $GB name=gamma2 pkey=0xffff >>"$dir/answers"
  SIM_HOST=$A sim saquery -S 2>&1 | awk '/ServiceRecord dump/ { n++ } n <= 1' >"$dir/saquery-S2"
  # A new one goes first.
  svc $B set 0x30 $GB name=newest >>"$dir/answers"
  SIM_HOST=$A sim saquery -S 2>&1 | awk '/ServiceRecord dump/ { n++ } n <= 1' >"$dir/saquery-S3"
}

start_ibsim tree.topo
start_opensm_daemon osm -R ftree
session osm.sa
osm=${SIM_PIDS[-1]}
stop_daemon "$osm"
stop_ibsim

start_ibsim tree.topo
mkdir -p state && cp osm/guid2lid state/guid2lid
: >plain.conf
start_cloudsmd_daemon sm.log -c plain.conf --state-dir state
session ours.sa

for f in answers saquery-S saquery-S2 saquery-S3; do
  CHECKS=$((CHECKS + 1))
  if cmp -s "osm.sa/$f" "ours.sa/$f"; then
    echo "ok: $f the same as OpenSM's ($(wc -l <"osm.sa/$f") lines)"
  else
    fail "$f differs from OpenSM's:"; diff "osm.sa/$f" "ours.sa/$f" | head -20
  fi
done
check "OpenSM registered services" grep -q 'status 0x0000 method 0x81 id 0x10 .*alpha2' osm.sa/answers
check "saquery -S showed a record" grep -q "ServiceRecord dump" osm.sa/saquery-S
check "saquery -S shows the newest first" grep -q "ServiceName.*newest" osm.sa/saquery-S3

# Leases, on cloudsmd: 2 s ends, infinite does not.
svc $A set 0x20 $GA name=short lease=2 >/dev/null
expect_eq "a 2 s lease: there at once" "0x0000" "$(svc $A get 0x20 $GA | awk '{print $2}')"
sleep 3
expect_eq "a 2 s lease: gone after 3 s" "0x0300" "$(svc $A get 0x20 $GA | awk '{print $2}')"
expect_eq "the infinite lease: still there" "0x0000" "$(svc $A get 0x12 $GB | awk '{print $2}')"
finish
