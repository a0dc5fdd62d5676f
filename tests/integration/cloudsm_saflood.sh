#!/usr/bin/env bash
# `cloudsm saflood` (Paper I's SA flooder, Algorithm 1) on ibsim, briefly, against cloudsmd and
# against OpenSM 3.3.23: a SIF and two MIFs, each its own process on its own simulated host,
# three rounds. Checks Algorithm 1's instance counts per round, that every flooder was served in
# every round it ran, that the columns add up (the total is the sum of the flooders' rates), and,
# on cloudsmd, that the SM received at least the queries the windows counted as answered.
source "$(dirname "$0")/../lib/common.sh"
require_oracles ibsim opensm
cd "$WORK" || exit 1

"$CLOUDSM" topo gen kary 4 2 -o tree.topo || fail "topo gen"
HOSTS=H-0010000000000400,H-0010000000000500,H-0010000000000600
ROUNDS=(-m 3 -n 2 -k 2 --collect 1 --gap 0.3)

# flood NAME: run the experiment against the SM that is up; the rounds' checks.
flood() {
  local name=$1
  sim "$CLOUDSM" saflood --targets hosts "${ROUNDS[@]}" --sim-hosts "$HOSTS" --json \
    >"$name.json" 2>"$name.err"
  expect_eq "$name: exit status" 0 $?
  expect_eq "$name: instances per round (1 + n k (r - 1))" "1 5 9" \
    "$(jq -r '[.rounds[].instances] | join(" ")' "$name.json")"
  expect_eq "$name: the SIF runs one instance every round" "1 1 1" \
    "$(jq -r '[.rounds[].flooders[0].instances] | join(" ")' "$name.json")"
  expect_eq "$name: MIF1 runs 0, 2, 4" "0 2 4" \
    "$(jq -r '[.rounds[].flooders[1].instances] | join(" ")' "$name.json")"
  expect_eq "$name: flooder names" "SIF MIF1 MIF2" \
    "$(jq -r '[.rounds[0].flooders[].name] | join(" ")' "$name.json")"
  expect_eq "$name: the SIF was answered in every round" true \
    "$(jq '[.rounds[].flooders[0].answered > 0] | all' "$name.json")"
  expect_eq "$name: the MIFs were answered in rounds 2 and 3" true \
    "$(jq '[.rounds[1:][].flooders[1:][].answered > 0] | all' "$name.json")"
  expect_eq "$name: MIFs idle in round 1" 0 "$(jq '[.rounds[0].flooders[1:][].sent] | add' "$name.json")"
  expect_eq "$name: no timeouts, no refusals" "0 0" \
    "$(jq -r '[([.rounds[].timeouts] | add), ([.rounds[].refused] | add)] | join(" ")' "$name.json")"
  expect_eq "$name: total Q/s is the sum of the flooders'" true \
    "$(jq '[.rounds[] | ((.total_qps - ([.flooders[].qps] | add)) | fabs) <= 1e-4 * .total_qps] | all' "$name.json")"
  expect_eq "$name: Q/s = answered / window" true \
    "$(jq '[.rounds[].flooders[] | ((.qps * .seconds - .answered) | fabs) < 0.5] | all' "$name.json")"
  expect_eq "$name: the SIF's median response time is measured" true \
    "$(jq '[.rounds[].flooders[0].median_ms > 0] | all' "$name.json")"
  expect_eq "$name: Table V's last total is round 3's" true \
    "$(jq '.table_v.last_total_qps == .rounds[2].total_qps' "$name.json")"
}

# ---- cloudsmd ----
start_ibsim tree.topo
mkdir -p state
start_cloudsmd_daemon sm.log -R ftree --state-dir state
grep '^0x0010' state/guid2lid >hosts
"$CLOUDSM" sm status -d state --json >before.json
flood cloudsmd
"$CLOUDSM" sm status -d state --json >after.json
received=$(($(json_get after.json sa_requests) - $(json_get before.json sa_requests)))
answered=$(jq '[.rounds[].answered] | add' cloudsmd.json)
check "cloudsmd received at least the $answered queries answered in the windows ($received)" \
  test "$received" -ge "$answered"

# Text output: the columns and the Table V line.
sim "$CLOUDSM" saflood --targets hosts -m 2 -n 1 -k 1 --collect 0.5 --gap 0.2 \
  --sim-hosts H-0010000000000400,H-0010000000000500 >text.out 2>text.err
expect_eq "text: exit status" 0 $?
check "text: the header names the columns" \
  grep -qE "^round +instances +SIF Q/s +MIF1 Q/s +total Q/s +mean ms +median ms +std ms" text.out
expect_eq "text: a row per round" 2 "$(grep -cE '^ +[12] ' text.out)"
check "text: the Table V line" grep -q "^Table V: round 1 SIF" text.out

# --only: one flooder of an experiment spread over hosts, from a common wall-clock start.
SIM_HOST=H-0010000000000700 sim "$CLOUDSM" saflood --targets hosts -m 2 -n 1 -k 3 --collect 0.5 \
  --gap 0.2 --only MIF1 --start-at $(($(date +%s) + 1)) --json >only.json 2>only.err
expect_eq "--only MIF1: exit status" 0 $?
expect_eq "--only MIF1: its instances per round" "0 3" \
  "$(jq -r '[.rounds[].flooders[0].instances] | join(" ")' only.json)"
expect_eq "--only MIF1: named" MIF1 "$(jq -r '.rounds[0].flooders[0].name' only.json)"
check "--only MIF1: answered in round 2" test "$(jq '.rounds[1].answered' only.json)" -gt 0
stop_daemon "$daemon"
stop_ibsim

# ---- OpenSM ----
start_ibsim tree.topo
start_opensm_daemon "$WORK/osm"
grep '^0x0010' osm/guid2lid >hosts
flood opensm
stop_ibsim

# ---- Bad input ----
"$CLOUDSM" saflood -m 2 2>err.txt
expect_eq "no --targets: exit 2" 2 $?
check "no --targets: says so" grep -q -- "--targets FILE is required" err.txt
"$CLOUDSM" saflood --targets hosts -n 2 --sim-hosts a,b 2>err.txt
expect_eq "two sim hosts for three flooders: exit 2" 2 $?
printf '0x0010000000000101 0x0003 0x0003\nnot a line\n' >bad.lids
"$CLOUDSM" saflood --targets bad.lids 2>err.txt
expect_eq "a bad targets file: exit 1" 1 $?
check "a bad targets file: file:line in the error" grep -q "bad.lids:2:" err.txt
"$CLOUDSM" saflood --targets hosts --only MIF3 -n 2 --start-at 1 2>err.txt
expect_eq "--only beyond n: exit 2" 2 $?
finish
