#!/usr/bin/env bash
# SIGHUP on a running cloudsmd (issue 12 item 6), on ibsim: the daemon reopens its log file,
# reads its configuration and the files it names again, and applies what changed: a host added
# to a partition gets the P_Key (smpquery pkeys), a new routing_engine reprograms the LFTs
# (dump_fts = the engine's offline tables), a flag still wins over the file, a key that needs a
# restart keeps its value with a warning, a broken configuration or partitions.conf is logged
# at ERROR and the running one kept. The daemon never dies of it and its socket stays.
source "$(dirname "$0")/../lib/common.sh"
require_oracles ibsim smpquery dump_fts
cd "$WORK" || exit 1

# 4-ary-2-tree: 16 hosts H-0010000000000000 .. 0f00 (port GUID +1), 8 switches.
"$CLOUDSM" topo gen kary 4 2 -o tree.topo || fail "topo gen"
start_ibsim tree.topo
cat >partitions.conf <<'PART'
Default=0x7fff : ALL=full ;
Blue=0x0001 : 0x0010000000000101=full ;
PART
write_conf() { # write_conf [EXTRA LINES]: sm.conf with the partitions and what is given
  printf 'partition_config_file %s\nsweep_interval 30\n' "$WORK/partitions.conf" >sm.conf
  printf '%s\n' "$@" >>sm.conf
}
write_conf "routing_engine ftree" "sm_priority 5"
# -p 3 on the command line: it must win over the file's sm_priority after every SIGHUP too.
start_cloudsmd_daemon sm.log -c sm.conf -p 3 --state-dir state

lid_of() { printf '%d' "$(awk -v g="$1" '$1 == g {print $2}' state/guid2lid)"; }
pkeys_of_host() { sim smpquery pkeys "$(lid_of "$1")" 2>/dev/null | grep -v '^#'; }
reloads=0
hup() { # hup: send SIGHUP and wait until the daemon has logged the outcome
  reloads=$((reloads + 1))
  kill -HUP "$daemon"
  for _ in $(seq 1 100); do
    [[ $(cat sm.log* 2>/dev/null | grep -c "SIGHUP: ") -ge $reloads ]] && break
    sleep 0.1
  done
  sleep 0.3
  reloads=$(cat sm.log* 2>/dev/null | grep -c "SIGHUP: ")
}
sm_priority() { sim sminfo 2>/dev/null | sed -nE 's/.* priority ([0-9]+) .*/\1/p'; }

check "before: host 4 is not in Blue" test -z "$(pkeys_of_host 0x0010000000000401 | grep -o 0x8001)"
expect_eq "before: sm_priority from the flag" 3 "$(sm_priority)"

# 1. partitions.conf gains a member: its P_Key table gets the entry, the others keep theirs.
cat >partitions.conf <<'PART'
Default=0x7fff : ALL=full ;
Blue=0x0001 : 0x0010000000000101=full, 0x0010000000000401=full ;
PART
hup
check "SIGHUP 1 logged the changed file" grep -q "SIGHUP: configuration read again; changed: nothing; files changed: partition_config_file" sm.log
expect_eq "SIGHUP 1: host 4 is a full member of Blue now" 0x8001 \
  "$(pkeys_of_host 0x0010000000000401 | grep -o 0x8001 | head -1)"
expect_eq "SIGHUP 1: host 1 still is" 0x8001 "$(pkeys_of_host 0x0010000000000101 | grep -o 0x8001 | head -1)"
check "SIGHUP 1: cloudsmd is alive" kill -0 "$daemon"

# 2. routing_engine minhop (and sm_priority 7 in the file, which the flag -p 3 overrides).
sim dump_fts >ftree.dump 2>/dev/null
write_conf "routing_engine minhop" "sm_priority 7"
hup
check "SIGHUP 2 logged the changed key" grep -q "SIGHUP: configuration read again; changed: routing_engine$" sm.log
check "SIGHUP 2 rerouted" grep -q "SIGHUP: routed with minhop" sm.log
sim dump_fts >minhop.dump 2>/dev/null
"$CLOUDSM" route -R minhop tree.topo --guid2lid state/guid2lid -o offline-minhop.lfts
"$CLOUDSM" lft diff offline-minhop.lfts minhop.dump --json >minhop.json
expect_eq "SIGHUP 2: dump_fts = offline minhop (entries differing)" 0 \
  "$(json_get minhop.json entries_changed)"
"$CLOUDSM" lft diff ftree.dump minhop.dump --json >moved.json
check "SIGHUP 2: the tables did change" test "$(json_get moved.json entries_changed)" -gt 0
expect_eq "SIGHUP 2: the flag -p 3 still wins over the file's sm_priority 7" 3 "$(sm_priority)"
"$CLOUDSM" sm status -d state --json >status.json
expect_eq "SIGHUP 2: sm status says minhop" minhop "$(json_get status.json engine)"

# 3. A key that needs a restart (the SMP pipe's window): warned about, kept. (state_dir would
# be one too, but here the flag --state-dir wins over the file anyway.)
write_conf "routing_engine minhop" "max_wire_smps 8"
hup
check "SIGHUP 3: max_wire_smps needs a restart (WARN)" \
  grep -qE "WARN  SIGHUP: max_wire_smps needs a restart; keeping 64 until then" sm.log
check "SIGHUP 3: the socket stays where it was" test -S state/cloudsmd.sock

# 4. A broken configuration: ERROR, the running one is kept, the daemon serves on.
write_conf "routing_engine minhop" "sm_priority 99"
hup
check "SIGHUP 4: the broken file is logged at ERROR with file:line" \
  grep -qE "ERROR SIGHUP: sm.conf:[0-9]+: sm_priority: 99 is out of range 0..15; keeping the running configuration" sm.log
"$CLOUDSM" sm status -d state --json >status.json
expect_eq "SIGHUP 4: sm status still answers, still minhop" minhop "$(json_get status.json engine)"

# 5. A broken partitions.conf: ERROR with file:line, the P_Key tables stay.
write_conf "routing_engine minhop"
echo 'Red=0x0002 : nonsense=full ;' >>partitions.conf
hup
check "SIGHUP 5: the broken partitions.conf is logged at ERROR with file:line" \
  grep -qE "ERROR SIGHUP: $WORK/partitions.conf:3: .*; keeping the running configuration" sm.log
expect_eq "SIGHUP 5: host 4 keeps Blue" 0x8001 "$(pkeys_of_host 0x0010000000000401 | grep -o 0x8001 | head -1)"

# 6. logrotate: the log moved away, SIGHUP, a new log file.
mv sm.log sm.log.1
hup
check "SIGHUP 6: a new log file" test -s sm.log
check "SIGHUP 6: it holds the reload" grep -q "SIGHUP: " sm.log
check "SIGHUP 6: the old one got nothing more" test -z "$(grep -c 'files changed' sm.log.1 | grep -v '^1$')"

check "after 6 SIGHUPs cloudsmd is alive" kill -0 "$daemon"
check "and its control socket is there" test -S state/cloudsmd.sock
stop_daemon "$daemon"
expect_eq "cloudsmd stops cleanly" 0 $?
finish
