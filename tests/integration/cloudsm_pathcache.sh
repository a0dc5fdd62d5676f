#!/usr/bin/env bash
# `cloudsm pathcache` on ibsim (Paper I's client-side SA PathRecord cache): a client on one host
# keeps connections to peers, probing them with LID-routed SMPs; a peer whose node drops every
# packet for a while (ibsim's Error) loses its connection and the client reconnects. SA queries
# are counted by the client and, where cloudsmd is the SM, by the SM (`cloudsm sm status`
# sa_requests).
#
#   cloudsmd with subnet_supports_sa_path_caching: one SA query per peer, whatever the number of
#     reconnections (R5); --no-cache: one per attempt, the SM counts the same
#   cloudsmd without the flag: the cache never turns on; the client asks as often as --no-cache
#   the peer's LID changes (cloudsmd restarted with a guid2lid that swaps two hosts' LIDs, as a
#     migration without LIDtracker): the paper's cache keeps reconnecting to the stale LID and
#     never asks the SA (F17); --invalidate-on-failure asks once and reconnects
#   --peers FILE and SIGHUP: a bad file or other names change nothing; a new address is used from
#     the next attempt, once the connection to the old one drops
#   the SM moves to another host (its LID changes): --flush-on-sm-change drops the cache
#   OpenSM 3.3.23, which never sets the flag: the cache stays off, a query per attempt
source "$(dirname "$0")/../lib/common.sh"
require_oracles ibsim opensm smpquery
CLOUDSMD=${CLOUDSM_BUILD_DIR:?}/cloudsmd
cd "$WORK" || exit 1

# 4-ary-2-tree: hosts H-0010000000000000 .. H-0010000000000f00, port GUID = node GUID + 1.
"$CLOUDSM" topo gen kary 4 2 -o tree.topo || fail "topo gen"
CLIENT=H-0010000000000300
P1=0x0010000000000101 # the peer that goes silent
P5=0x0010000000000501
FAST=(--probe-interval 50 --probe-timeout 60 --probe-retries 0 --backoff-max 200)

start_sm() { # start_sm CONFIG [SIM_HOST]: cloudsmd as a daemon with the state in ./state
  SIM_HOST=${2:-H-0010000000000000} start_cloudsmd_daemon "sm-$RANDOM.log" -R ftree -c "$1" \
    --state-dir state
}
stop_sm() { stop_daemon "$daemon"; }
sa_requests() { "$CLOUDSM" sm status -d state --json >status.json && json_get status.json sa_requests; }

# client NAME [options] PEER...: a background client writing NAME.json (its own process, $!,
# so that kill reaches it); waits until connected.
client() {
  local name=$1; shift
  SIM_HOST=$CLIENT LD_PRELOAD="$UMAD2SIM" "$CLOUDSM" pathcache --json -o "$name.json" \
    "${FAST[@]}" "$@" 2>"$name.err" &
  client_pid=$!
  SIM_PIDS+=("$client_pid")
  for _ in $(seq 1 100); do
    [[ -s $name.json && $(jq .totals.connected "$name.json") == $(jq .totals.peers "$name.json") ]] &&
      return 0
    sleep 0.1
  done
  fail "$name: the client did not connect: $(cat "$name.err")"
}
stop_client() { stop_daemon "$client_pid"; }
peer() { jq -r ".peers[$2].$3" "$1.json"; } # peer NAME INDEX FIELD

# silence SECONDS: P1's node drops every packet for that long, then answers again; waits until
# the client reconnected.
silence() {
  ibsim_cmd 'Error "H-0010000000000100" 100'
  sleep "$1"
  ibsim_cmd 'Error "H-0010000000000100" 0'
  sleep 1
}

IBSIM_CONSOLE=1 start_ibsim tree.topo
printf 'subnet_supports_sa_path_caching TRUE\n' >caching.conf
: >plain.conf

# ---- cloudsmd with the caching flag ----
start_sm caching.conf
before=$(sa_requests)
SIM_HOST=$CLIENT sim "$CLOUDSM" pathcache "$P1" "$P5" --until-connected --json >once.json \
  2>once.err
expect_eq "one-shot: exit status" 0 $?
expect_eq "one-shot: both peers connected" 2 "$(jq .totals.connected once.json)"
expect_eq "one-shot: one SA query per peer" 2 "$(jq .totals.sa_queries once.json)"
expect_eq "one-shot: the SM's flag turned the cache on" true "$(jq .cache.enabled once.json)"
expect_eq "one-shot: two records cached" 2 "$(jq .cache.entries once.json)"
expect_eq "one-shot: the SM counted the same SA requests" 2 $(($(sa_requests) - before))
expect_eq "one-shot: the record's DLID is P1's LID" \
  "$(($(awk -v g=$P1 '$1 == g {print $2}' state/guid2lid)))" "$(peer once 0 dlid)"
expect_eq "one-shot: Paper I's entry size reported" 71 "$(jq .cache.paper_entry_bytes once.json)"

# The report on SIGUSR1 and at exit, on standard output without -o.
SIM_HOST=$CLIENT LD_PRELOAD="$UMAD2SIM" "$CLOUDSM" pathcache "$P5" --json >usr1.out 2>usr1.err &
usr1=$!
SIM_PIDS+=("$usr1")
sleep 1
kill -USR1 "$usr1"
sleep 0.5
expect_eq "SIGUSR1: a report on standard output, the peer connected" 1 \
  "$(jq -s '.[0].totals.connected' usr1.out)"
stop_daemon "$usr1"
expect_eq "SIGTERM: exit 0 (every peer connected)" 0 $?
expect_eq "SIGTERM: the final report follows" 2 "$(jq -s length usr1.out)"

before=$(sa_requests)
client cached "$P1" "$P5"
seconds=$(jq .seconds cached.json)
kill -USR1 "$client_pid"
sleep 0.3
check "SIGUSR1: the report file rewritten" test "$(jq ".seconds > $seconds" cached.json)" == true
silence 1.5
stop_client
attempts=$(peer cached 0 attempts)
check "cache on: P1 dropped and reconnected ($(peer cached 0 drops) drops, $(peer cached 0 reconnects) reconnects)" \
  test "$(peer cached 0 reconnects)" -ge 1 -a "$(peer cached 0 state)" == up
check "cache on: several attempts while P1 was silent ($attempts)" test "$attempts" -ge 3
expect_eq "cache on: one SA query for P1 in all (R5)" 1 "$(peer cached 0 sa_queries)"
expect_eq "cache on: every other attempt a cache hit" $((attempts - 1)) "$(peer cached 0 cache_hits)"
expect_eq "cache on: P5 never dropped" 0 "$(peer cached 1 drops)"
expect_eq "cache on: the SM saw one query per peer" 2 $(($(sa_requests) - before))

before=$(sa_requests)
client nocache --no-cache "$P1"
silence 1.5
stop_client
attempts=$(peer nocache 0 attempts)
check "--no-cache: P1 reconnected after several attempts ($attempts)" \
  test "$attempts" -ge 3 -a "$(peer nocache 0 reconnects)" -ge 1
expect_eq "--no-cache: a query per attempt" "$attempts" "$(peer nocache 0 sa_queries)"
expect_eq "--no-cache: no cache hit" 0 "$(peer nocache 0 cache_hits)"
expect_eq "--no-cache: the SM counted them" "$attempts" $(($(sa_requests) - before))

# ---- --peers: SIGHUP reads the file again (IPoIB's ARP telling RDS a new GID) ----
printf '# the peers by name\n%s db\n' "$P1" >peers
SIM_HOST=$CLIENT LD_PRELOAD="$UMAD2SIM" "$CLOUDSM" pathcache --peers peers --json -o reload.json \
  "${FAST[@]}" 2>reload.err &
reload_pid=$!
SIM_PIDS+=("$reload_pid")
for _ in $(seq 1 50); do [[ $(jq .totals.connected reload.json 2>/dev/null) == 1 ]] && break; sleep 0.1; done
expect_eq "--peers: the peer by its name" db "$(peer reload 0 name)"
expect_eq "--peers: connected to P1's port" "$P1" "$(peer reload 0 port_guid)"
printf 'nonsense db\n' >peers
kill -HUP "$reload_pid"
sleep 0.5
expect_eq "SIGHUP, a bad file: counted" 1 "$(jq .reload_failures reload.json)"
check "SIGHUP, a bad file: file:line on standard error" \
  grep -q "SIGHUP: peers:1: peer address \"nonsense\"" reload.err
expect_eq "SIGHUP, a bad file: the address kept" "$P1" "$(peer reload 0 peer)"
printf '%s web\n' "$P5" >peers
kill -HUP "$reload_pid"
sleep 0.5
expect_eq "SIGHUP, another name: refused" 2 "$(jq .reload_failures reload.json)"
check "SIGHUP, another name: says which" grep -q "peer 'db' is missing" reload.err
printf '%s db\n' "$P5" >peers
kill -HUP "$reload_pid"
sleep 0.5
expect_eq "SIGHUP: db has a new address" 1 "$(peer reload 0 address_changes)"
expect_eq "SIGHUP: read three times" 3 "$(jq .reloads reload.json)"
expect_eq "SIGHUP: the connection to P1 stays while its probes find P1" "up $P1" \
  "$(peer reload 0 state) $(peer reload 0 port_guid)"
silence 1.5
stop_daemon "$reload_pid"
expect_eq "after P1 dropped: db reconnected at its new address, P5's port" "up $P5" \
  "$(peer reload 0 state) $(peer reload 0 port_guid)"
expect_eq "after P1 dropped: P5's LID" "$(($(awk -v g=$P5 '$1 == g {print $2}' state/guid2lid)))" \
  "$(peer reload 0 dlid)"
expect_eq "after P1 dropped: one SA query for the new address (cache on)" 2 "$(peer reload 0 sa_queries)"

# ---- The peer's LID changes (no LIDtracker): stale cache vs invalidation ----
client paper "$P1"
cp paper.json paper.before.json
SIM_HOST=$CLIENT LD_PRELOAD="$UMAD2SIM" "$CLOUDSM" pathcache --json -o inval.json \
  "${FAST[@]}" --invalidate-on-failure "$P1" 2>inval.err &
inval_pid=$!
SIM_PIDS+=("$inval_pid")
for _ in $(seq 1 50); do [[ $(jq .totals.connected inval.json 2>/dev/null) == 1 ]] && break; sleep 0.1; done
stop_sm
lid1=$(awk -v g=$P1 '$1 == g {print $2}' state/guid2lid)
lid2=$(awk '$1 == "0x0010000000000201" {print $2}' state/guid2lid)
awk -v a=$P1 -v b=0x0010000000000201 -v la="$lid1" -v lb="$lid2" \
  '$1 == a {$2 = lb; $3 = lb} $1 == b {$2 = la; $3 = la} {print}' state/guid2lid >guid2lid.swapped
mv guid2lid.swapped state/guid2lid
start_sm caching.conf
sleep 3
kill "$client_pid" "$inval_pid"
wait_exit "$client_pid" 10 "of SIGTERM"
wait_exit "$inval_pid" 10 "of SIGTERM"
check "LID moved: smpquery finds P1 at LID $((lid2)) now" \
  bash -c "SIM_HOST=$CLIENT timeout -k 5 120 env LD_PRELOAD=$UMAD2SIM smpquery nodeinfo $((lid2)) | grep -q 'PortGuid:\\.*0x0010000000000101'"
check "paper's cache: P1 dropped" test "$(peer paper 0 drops)" -ge 1
check "paper's cache: never reconnected, stale record ($(peer paper 0 connect_failures) failed attempts)" \
  test "$(peer paper 0 state)" != up -a "$(peer paper 0 connect_failures)" -ge 3
expect_eq "paper's cache: still the old DLID" "$((lid1))" "$(peer paper 0 dlid)"
expect_eq "paper's cache: no SA query after the first (F17)" 1 "$(peer paper 0 sa_queries)"
expect_eq "--invalidate-on-failure: reconnected" up "$(peer inval 0 state)"
expect_eq "--invalidate-on-failure: at P1's new LID" "$((lid2))" "$(peer inval 0 dlid)"
expect_eq "--invalidate-on-failure: one more SA query" 2 "$(peer inval 0 sa_queries)"
check "--invalidate-on-failure: the stale record was dropped" \
  test "$(jq .cache.invalidated inval.json)" -ge 1

# ---- The SM moves to another host: --flush-on-sm-change ----
client flush --flush-on-sm-change --port-poll 100 "$P1" "$P5"
sm_lid=$(jq .port.sm_lid flush.json)
stop_sm
start_sm caching.conf H-0010000000000f00
sleep 1.5
silence 1.5
stop_client
check "SM moved: the client saw the SM LID change" test "$(jq .port.sm_changes flush.json)" -ge 1 \
  -a "$(jq .port.sm_lid flush.json)" != "$sm_lid"
check "SM moved: the cache was flushed" test "$(jq .cache.flushed flush.json)" -ge 2
expect_eq "SM moved: P1 asked the new SM again" 2 "$(peer flush 0 sa_queries)"
expect_eq "SM moved: P5 (never dropped) did not" 1 "$(peer flush 1 sa_queries)"
expect_eq "SM moved: P1 reconnected" up "$(peer flush 0 state)"
stop_sm

# ---- cloudsmd without the flag: the cache stays off ----
start_sm plain.conf
before=$(sa_requests)
client unflagged "$P1"
silence 1.5
stop_client
attempts=$(peer unflagged 0 attempts)
check "no flag: reconnected after several attempts ($attempts)" test "$attempts" -ge 3
expect_eq "no flag: the cache never turned on" false "$(jq .cache.enabled unflagged.json)"
expect_eq "no flag: nothing cached" 0 "$(jq .cache.entries unflagged.json)"
expect_eq "no flag: a query per attempt, as without the cache" "$attempts" \
  "$(peer unflagged 0 sa_queries)"
expect_eq "no flag: the SM counted them" "$attempts" $(($(sa_requests) - before))
stop_sm
stop_ibsim

# ---- OpenSM 3.3.23 ----
IBSIM_CONSOLE=1 start_ibsim tree.topo
start_opensm_daemon "$WORK/osm"
client osm "$P1" "$P5"
silence 1.5
stop_client
attempts=$(peer osm 0 attempts)
check "OpenSM: P1 reconnected after several attempts ($attempts)" \
  test "$attempts" -ge 3 -a "$(peer osm 0 state)" == up
expect_eq "OpenSM: no caching flag, the cache stays off" false "$(jq .cache.enabled osm.json)"
expect_eq "OpenSM: nothing cached" 0 "$(jq .cache.entries osm.json)"
expect_eq "OpenSM: a query per attempt" "$attempts" "$(peer osm 0 sa_queries)"
expect_eq "OpenSM: P1's DLID as OpenSM assigned it" \
  "$(($(awk -v g=$P1 '$1 == g {print $2}' osm/guid2lid)))" "$(peer osm 0 dlid)"

# Bad input: a clear error, exit 2.
"$CLOUDSM" pathcache 2>err.txt
expect_eq "no peer: exit 2" 2 $?
"$CLOUDSM" pathcache nonsense 2>err.txt
expect_eq "bad peer: exit 2" 2 $?
check "bad peer: the error names it" grep -q "peer 'nonsense'" err.txt
finish
