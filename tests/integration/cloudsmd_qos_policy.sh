#!/usr/bin/env bash
# OpenSM's QoS policy file (qos_policy_file, its qos-ulps section) on ibsim: OpenSM 3.3.23 and
# cloudsmd, each with qos TRUE, the same partitions.conf and the same qos-policy.conf, answer
# saquery's PathRecord queries (by LIDs, with and without a P_Key, a ServiceID, an SL) with the
# same records, field by field but the LIDs (each SM assigns its own) and the ServiceID (cloudsm
# returns the request's), the reversible bit included, and the SLs are the
# policy's, not the partitions' sl= flags. A bad policy file stops cloudsmd at start with its
# file:line:col; on SIGHUP it keeps the running policy; a good new one is applied.
source "$(dirname "$0")/../lib/common.sh"
require_oracles ibsim opensm saquery
CLOUDSMD=${CLOUDSM_BUILD_DIR:?}/cloudsmd
cd "$WORK" || exit 1

# 2-ary-2-tree: hosts 0..3 (port GUIDs 0x0010000000000001, ..101, ..201, ..301).
"$CLOUDSM" topo gen kary 2 2 -o tree.topo || fail "topo gen"
H0=0x0010000000000001 H1=0x0010000000000101 H2=0x0010000000000201 H3=0x0010000000000301

cat >partitions.conf <<EOT
Default=0x7fff, ipoib, sl=1 : ALL=full ;
Blue=0x0001, ipoib, sl=2 : $H0=full, $H1=full ;
Red=0x0002 : $H2=full, $H3=full ;
EOT
# Every rule kind the test can tell apart by its SL, in an order where a later rule would match
# some queries too (the first one must win).
cat >qos-policy.conf <<EOT
# per-ULP SLs
qos-ulps
    default                          : 3
    any, service-id 0x1000-0x10ff    : 4
    sdp, port-num 5000               : 5
    sdp                              : 6
    rds                              : 12
    iser, port-num 100-200           : 13
    ipoib, pkey 0x0001               : 7
    any, pkey 0x0002                 : 8
    any, target-port-guid $H3        : 9
    any, source-port-guid $H2        : 10
    ipoib                            : 11
end-qos-ulps
EOT
cat >sm.conf <<EOT
qos TRUE
partition_config_file $WORK/partitions.conf
qos_policy_file $WORK/qos-policy.conf
EOT

lid_of() { awk -v g="$2" '$1 == g {print $2 + 0}' "$1"; }
# The queries: "SRC DST saquery-options" (hosts by index).
QUERIES=(
  "0 1"
  "0 1 --pkey 0x0001"
  "0 1 --pkey 0x8001"
  "2 3 --pkey 0x0002"
  "0 3"
  "2 0"
  "0 1 --pkey 0xffff"
  "0 2 --pkey 0x7fff"
  "0 1 --service_id 0x1080"
  "0 1 --service_id 0x11388"
  "0 1 --service_id 0x10001"
  "0 1 --service_id 0x1080 --pkey 0x0001"
  "0 1 --service_id 0x10648ca"
  "0 1 --service_id 0x1060080"
  "0 1 --service_id 0x2000 --pkey 0x0001"
  "0 1 --sl 3"
  "0 1 --sl 2"
  "0 3 --sl 9"
  "3 0 --sl 3"
)
# answers GUID2LID: each query's PathRecords as saquery prints them, without the LIDs, one
# block per query.
answers() {
  local g=$1 q src dst opts
  local lids=("$(lid_of "$g" $H0)" "$(lid_of "$g" $H1)" "$(lid_of "$g" $H2)" "$(lid_of "$g" $H3)")
  for q in "${QUERIES[@]}"; do
    read -r src dst opts <<<"$q"
    echo "== $q"
    # shellcheck disable=SC2086 # opts are several words
    SIM_HOST=H-0010000000000000 sim saquery -p --src-to-dst "${lids[$src]}:${lids[$dst]}" $opts \
      2>/dev/null | grep -vE '^[[:space:]]*(slid|dlid)\.' | saquery_first_records
  done
}
# The multicast groups' MGIDs and SLs (the partitions' IPoIB broadcast groups).
mc_sls() { SIM_HOST=H-0010000000000000 sim saquery -g 2>/dev/null | grep -iE '^[[:space:]]*(mgid|sl)\.'; }
sls() { # the SL of each query's first record ("-" for none), space-separated
  awk '/^== / {if (n) printf "%s ", sl; n = 1; sl = "-"; next}
       /^[[:space:]]*sl\.+/ && sl == "-" {sub(/.*\.+/, ""); sl = $0 + 0}
       END {printf "%s\n", sl}' "$1"
}

start_ibsim tree.topo
start_opensm_daemon osm -F "$WORK/sm.conf"
sleep 2
check "OpenSM took the policy" bash -c '! grep -E "ERR AC0[1-5]" osm/osm.log'
answers osm/guid2lid >opensm.txt
mc_sls >opensm-mc.txt
stop_ibsim # OpenSM
stop_ibsim # ibsim

start_ibsim tree.topo
mkdir -p state
start_cloudsmd_daemon sm.log -c "$WORK/sm.conf" --state-dir state
check "cloudsmd read the policy" grep -q "qos: policy of 10 rules (default SL 3)" sm.log
answers state/guid2lid >cloudsmd.txt
mc_sls >cloudsmd-mc.txt
check "the answers hold records" grep -q "sgid" cloudsmd.txt
# The records' ServiceID is the request's in cloudsmd's (docs/sm/sa.md: so that the record
# matches the query), 0 in OpenSM's; every other field is compared.
no_sid() { grep -v 'service_id\.' "$1"; }
if ! cmp -s <(no_sid opensm.txt) <(no_sid cloudsmd.txt); then
  fail "PathRecords differ between OpenSM and cloudsmd"
  diff <(no_sid opensm.txt) <(no_sid cloudsmd.txt) | head -60
fi
check "cloudsmd: the ServiceID as asked" grep -q "service_id\.*0x00000000010648ca" cloudsmd.txt
# What OpenSM's policy lookup gives (osm_qos_policy.c): the first rule that matches, P_Key
# rules only for a request with a P_Key, the default otherwise; an SL asked for that is not the
# policy's finds nothing.
expect_eq "the policy's SLs" "3 7 7 8 9 10 11 11 4 5 6 4 12 13 7 3 - 9 3" "$(sls opensm.txt)"
expect_eq "cloudsmd's SLs" "$(sls opensm.txt)" "$(sls cloudsmd.txt)"
# The partitions' IPoIB groups keep their sl= flags (Blue 2, Default 1): OpenSM 3.3.23 gives the
# policy's P_Key rules' SLs (7, 11) to PathRecords only.
expect_eq "IPoIB groups' SLs as OpenSM's" "$(cat opensm-mc.txt)" "$(cat cloudsmd-mc.txt)"
expect_eq "IPoIB groups: the sl= flags" "0x2 0x1" "$(awk '/SL\./ {sub(/.*\.+/, ""); printf "%s%s", n++ ? " " : "", $0}' opensm-mc.txt)"
# OpenSM looks the policy up for each direction: host 3 as the target gives SL 9 one way, the
# default 3 back, so a request for SL 9 or 3 between hosts 0 and 3 is not reversible.
reversible() { awk -v q="== $2" '$0 == q {f = 1; next} /^== / {f = 0}
  f && /num_path_revers/ {sub(/.*\.+/, ""); print; exit}' "$1"; }
expect_eq "0 -> 1 on SL 3: reversible" 0x80 "$(reversible cloudsmd.txt "0 1 --sl 3")"
expect_eq "0 -> 3 on SL 9: one-way" 0x0 "$(reversible cloudsmd.txt "0 3 --sl 9")"
expect_eq "3 -> 0 on SL 3: one-way" 0x0 "$(reversible cloudsmd.txt "3 0 --sl 3")"

# SIGHUP with a bad policy: the running one stays (the error names file:line:col).
cp qos-policy.conf good-policy.conf
sed -i 's/^    rds  .*/    rds : 16/' qos-policy.conf
kill -HUP "$daemon"
wait_log sm.log "SIGHUP: " 1 20
check "SIGHUP: the bad file's place" grep -q "SIGHUP: $WORK/qos-policy.conf:7:[0-9]*: illegal SL value 16 (0..15); keeping the running configuration" sm.log
answers state/guid2lid >hup-bad.txt
check "SIGHUP with a bad file: the same answers" cmp -s cloudsmd.txt hup-bad.txt
# A good new one (default SL 2): applied.
sed 's/^    default  .*/    default : 2/' good-policy.conf >qos-policy.conf
kill -HUP "$daemon"
wait_log sm.log "files changed: qos_policy_file" 1 20
check "SIGHUP: the new policy" grep -q "SIGHUP: configuration read again; changed: nothing; files changed: qos_policy_file" sm.log
sleep 1
answers state/guid2lid >hup-good.txt
expect_eq "SIGHUP: the new default SL" "2 7 7 8 9 10 11 11 4 5 6 4 12 13 7 - 2 9 -" "$(sls hup-good.txt)"
kill "$daemon"; wait "$daemon" 2>/dev/null

# An ipoib rule whose partition the fabric does not have (P_Key 0x0005): OpenSM refuses the whole
# file (its check of IPoIB partitions) and answers with the partitions' SLs; so does cloudsmd,
# which logs why.
sed 's/^    ipoib  .*/    ipoib, pkey 0x0005 : 11/' good-policy.conf >qos-policy.conf
start_ibsim tree.topo
start_opensm_daemon osm-noipoib -F "$WORK/sm.conf"
sleep 2
check "OpenSM refused the policy" grep -q "ERR AC03" osm-noipoib/osm.log
answers osm-noipoib/guid2lid >opensm-noipoib.txt
stop_ibsim # OpenSM
stop_ibsim # ibsim
start_ibsim tree.topo
start_cloudsmd_daemon noipoib.log -c "$WORK/sm.conf" --state-dir state
check "cloudsmd: why the policy is not used" grep -q "qos: $WORK/qos-policy.conf:13: ipoib rule: P_Key 0x0005 is no partition with two full members or more" noipoib.log
answers state/guid2lid >cloudsmd-noipoib.txt
# Without a policy OpenSM answers a request for an SL with that SL, whatever the partition's;
# cloudsm finds no path then (docs/sm/sa.md: its packets would travel on another VL): the last
# three queries ask for SLs 3, 9 and 3 on Blue (sl=2) and Default (sl=1).
expect_eq "without the policy: OpenSM's SLs" "2 2 2 0 1 1 1 1 2 2 2 2 2 2 2 3 2 9 3" "$(sls opensm-noipoib.txt)"
expect_eq "without the policy: cloudsmd's SLs" "2 2 2 0 1 1 1 1 2 2 2 2 2 2 2 - 2 - -" "$(sls cloudsmd-noipoib.txt)"
kill "$daemon"; wait "$daemon" 2>/dev/null

# A bad policy at start: cloudsmd stops before it touches the fabric, with file:line:col.
printf 'qos-ulps\n  default : 0\nend-qos-ulps\nqos-levels\nend-qos-levels\n' >qos-policy.conf
LD_PRELOAD=$UMAD2SIM "$CLOUDSMD" -c "$WORK/sm.conf" --state-dir state --once >bad.out 2>&1
status=$?
check "bad policy at start: a failure ($status)" test "$status" -ne 0
check "bad policy at start: its place" grep -q "$WORK/qos-policy.conf:4:1: qos-levels: cloudsm reads only the qos-ulps section" bad.out
finish
