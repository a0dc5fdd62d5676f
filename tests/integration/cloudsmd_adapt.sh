#!/usr/bin/env bash
# The self-adaptive loop end to end on ibsim: cloudsmd with perfmgr (2 s polls) and a rules file
# on a 4-ary-2-tree. The console's PerformanceSet drives the counters: the first host of every
# leaf receives 9 GB/s, the other twelve send 3 GB/s each. Checked:
#   - what cloudsmd stores agrees with perfquery: a counter moved by a known amount shows up in
#     the stored samples as that many bytes;
#   - the rule fires within two polling intervals of the first hot sample; wftree with weights
#     learned from the store is applied differentially: the audit record (an adapt event) holds
#     the reason, the candidate's LFT SMPs, its predicted time and expected gain, the SMPs sent
#     (= planned = the blocks dump_fts shows changed, fewer than a full programming), and the
#     measured effect after the next poll;
#   - dump_fts shows the new tables, equal entry for entry to `cloudsm route -R wftree` with the
#     weights `cloudsm weights learn --store` learns from the same window;
#   - while the hot spot lasts a later firing finds nothing to change (no-change), and once it
#     is gone and the `for` window has passed nothing fires again: the loop does not flap;
#   - the kill switch (cloudsm sm adapt off) stops the rules at once, dry-run decides and sends
#     nothing.
source "$(dirname "$0")/../lib/common.sh"
require_oracles ibsim perfquery dump_fts ibnetdiscover
cd "$WORK" || exit 1

"$CLOUDSM" topo gen kary 4 2 -o t.topo || fail "topo gen"
cat >hot.rules <<'EOF'
# Hot receivers: a few nodes receive far more than the others, and it is real traffic.
rule hot_receivers {
    when max(node.rcv_bytes over 4s) > 3 * avg(node.rcv_bytes over 4s)
         and avg(node.rcv_bytes over 4s) > 100 MB/s
    for 2s
    cooldown 6s
    then reroute(engine = "wftree", weights = learned(over 4s))
}
EOF
"$CLOUDSM" adapt check hot.rules >/dev/null || fail "the rules check"
cat >sm.conf <<EOF
perfmgr TRUE
perfmgr_sweep_time_s 2
sweep_interval 0
adapt_rules_file $WORK/hot.rules
adapt_mode on
EOF

IBSIM_CONSOLE=1 start_ibsim t.topo
start_cloudsmd_daemon sm.log -R ftree -c sm.conf --state-dir "$WORK/state" --log-level debug
sim dump_fts >before.dump 2>/dev/null || fail "dump_fts"
sim ibnetdiscover >live.topo 2>/dev/null || fail "ibnetdiscover"

host() { printf 'H-%016x' $((0x0010000000000000 + ($1 << 8))); }
port_guid() { printf '0x%016x' $((0x0010000000000001 + ($1 << 8))); }
lid_of() { awk -v g="$1" '$1 "" == g "" { print $2 }' state/guid2lid; }
polls() { grep -c 'perfmgr: poll' sm.log; }
wait_polls() { wait_log sm.log 'perfmgr: poll' "$1" 30; }

# ---- perfquery and the store agree ------------------------------------------------------------
# Host 5's PortRcvData moves by D between two polls; the samples stored since then must hold
# 4 * D bytes (the counters count octets / 4) plus the few bytes of the MADs the polls themselves
# bring (ibsim counts them), and perfquery must read the counter where we set it.
lid5=$(($(lid_of "$(port_guid 5)")))
check "host 5 has a LID ($lid5)" test "$lid5" -gt 0
sim perfquery -x "$lid5" 1 >pq1.txt 2>/dev/null || fail "perfquery"
v1=$(sed -nE 's/^PortRcvData:\.*([0-9]+)$/\1/p' pq1.txt)
wait_polls $(($(polls) + 1))
t1=$(date +%s.%N)
ibsim_cmd "PerformanceSet \"$(host 5)\"[1] PortCountersExtended.PortRcvData=$((v1 + 1000000))"
wait_polls $(($(polls) + 2))
sim perfquery -x "$lid5" 1 >pq2.txt 2>/dev/null
v2=$(sed -nE 's/^PortRcvData:\.*([0-9]+)$/\1/p' pq2.txt)
check "perfquery reads the counter where it was set ($v2 >= $((v1 + 1000000)))" \
  test "$v2" -ge $((v1 + 1000000))
"$CLOUDSM" sm counters --state-dir state --since "$t1" --node "$(printf '0x%016x' $((0x0010000000000000 + (5 << 8))))" \
  --metric rcv_bytes --csv >counters.csv || fail "cloudsm sm counters"
stored=$(awk -F, 'NR > 1 { s += $NF * $6 } END { printf "%.0f", s }' counters.csv)
want=$((4 * (v2 - v1)))
check "the stored samples hold the bytes perfquery counted ($stored ~ $want)" \
  awk -v s="$stored" -v w="$want" 'BEGIN { d = s - w; exit !(d > -4096 && d < 4096) }'

# ---- the hot spot -------------------------------------------------------------------------------
# Counters are absolute: each second every sender's PortXmitData and every receiver's PortRcvData
# moves on by a second's worth (750M and 2250M units of 4 bytes).
declare -A count
drive() { # drive SECONDS: the traffic for that long
  local t i
  for ((t = 0; t < $1; t++)); do
    for ((i = 0; i < 16; i++)); do
      if ((i % 4 == 0)); then
        count[$i]=$((${count[$i]:-0} + 2250000000))
        echo "PerformanceSet \"$(host $i)\"[1] PortCountersExtended.PortRcvData=${count[$i]}" >&9
      else
        count[$i]=$((${count[$i]:-0} + 750000000))
        echo "PerformanceSet \"$(host $i)\"[1] PortCountersExtended.PortXmitData=${count[$i]}" >&9
      fi
    done
    sleep 1
  done
}
hot_from=$(polls)
drive 7
check "the rule fired" wait_log sm.log 'adapt: rule hot_receivers fired' 1 10
fired_at=$(grep -n 'adapt: rule hot_receivers fired' sm.log | head -n 1 | cut -d: -f1)
polls_before_firing=$(head -n "$fired_at" sm.log | grep -c 'perfmgr: poll')
# The first poll with hot samples comes at most one interval after the hot spot starts; the
# rule then holds for its 2 s `for` and fires at the next poll.
check "it fired within two polling intervals of the first hot sample (poll $polls_before_firing, hot from after poll $hot_from)" \
  test $((polls_before_firing - hot_from)) -le 3
drive 12
sim dump_fts >after.dump 2>/dev/null || fail "dump_fts after"

"$CLOUDSM" sm events --state-dir state --kind adapt --json >events.json || fail "sm events"
jq -e '.events[0].detail' events.json >first.json || fail "no adapt event"
expect_eq "the first decision was carried out" execute "$(jq -r .verdict first.json)"
expect_eq "by wftree with learned weights" wftree "$(jq -r .engine first.json)"
check "the audit says why" grep -q 'max(node.rcv_bytes over 4s)=' <(jq -r .why first.json)
planned=$(jq -r .candidate.lft_smps first.json)
sent=$(jq -r .executed.lft_smps first.json)
gain=$(jq -r .candidate.expected_gain first.json)
echo "adaptation: $planned LFT SMPs planned, $sent sent, expected gain $gain," \
  "predicted $(jq -r .candidate.predicted_ms first.json) ms"
check "cost: LFT SMPs planned ($planned > 0)" test "$planned" -gt 0
expect_eq "the SMPs sent are the ones planned" "$planned" "$sent"
check "expected gain above the 5% minimum ($gain)" awk -v g="$gain" 'BEGIN { exit !(g > 0.05) }'
check "the predicted time is there" jq -e '.candidate.predicted_ms > 0' first.json >/dev/null
check "the measured effect was added after the next poll" \
  jq -e '.effect.congestion_cost > 0' first.json >/dev/null
"$CLOUDSM" lft diff --json before.dump after.dump >diff.json
expect_eq "the tables changed (lft diff: 3, different)" 3 $?
expect_eq "dump_fts: the blocks that changed are the SMPs sent" "$sent" "$(json_get diff.json blocks_changed)"
full=$(grep -c '^Unicast lids' after.dump)
check "applied differentially: $sent blocks, fewer than the $full switches' full tables" \
  test "$sent" -lt "$full"

# Offline: the same weights from the store's samples of the same window, the same engine, the
# live LIDs: the same tables.
since=$(jq -r .traffic_since first.json) until=$(jq -r .traffic_until first.json)
"$CLOUDSM" weights learn --store state/monitor.sqlite --since "$since" \
  --until "$(awk -v u="$until" 'BEGIN { printf "%.3f", u + 0.001 }')" -o learned.weights ||
  fail "weights learn --store"
check "the receivers weigh 100" grep -q "$(port_guid 4) *100" learned.weights
"$CLOUDSM" route -R wftree --weights learned.weights live.topo -o offline.lfts >/dev/null ||
  fail "cloudsm route wftree"
"$CLOUDSM" lft diff --json offline.lfts after.dump >offline.json
expect_eq "lft diff offline: identical" 0 $?
expect_eq "dump_fts = wftree with the learned weights, entry for entry" 0 \
  "$(json_get offline.json entries_changed)"

# ---- no flapping --------------------------------------------------------------------------------
check "while hot, a later firing found nothing to change" \
  grep -qE 'reroute\(wftree, learned weights\): 0 LFT SMPs.*no-change' sm.log
# The hot spot is gone (no more PerformanceSet): once its samples have left the 4 s windows (3
# polls) nothing fires, through the 6 s cooldown and well beyond.
wait_polls $(($(polls) + 3))
quiet_from=$(grep -c 'adapt: rule hot_receivers fired' sm.log)
wait_polls $(($(polls) + 10))
expect_eq "no firing once the hot spot is gone" "$quiet_from" \
  "$(grep -c 'adapt: rule hot_receivers fired' sm.log)"
"$CLOUDSM" sm events --state-dir state --kind adapt --json >events2.json
expect_eq "one execution in all" 1 "$(jq '[.events[].detail | select(.verdict == "execute")] | length' events2.json)"
sim dump_fts >quiet.dump 2>/dev/null
"$CLOUDSM" lft diff --json after.dump quiet.dump >quiet.json
expect_eq "lft diff after the quiet time: identical" 0 $?
expect_eq "the tables stayed as the adaptation left them" 0 "$(json_get quiet.json entries_changed)"

# ---- the kill switch and dry-run ----------------------------------------------------------------
"$CLOUDSM" sm adapt off --state-dir state >off.txt || fail "sm adapt off"
check "off: said" grep -q '^mode *off (from the control socket)' off.txt
"$CLOUDSM" sm adapt dry-run --state-dir state --json >dry.json || fail "sm adapt dry-run"
expect_eq "dry-run: said" dry-run "$(jq -r .mode dry.json)"
expect_eq "the rule is listed" hot_receivers "$(jq -r '.rules[0].name' dry.json)"
"$CLOUDSM" sm adapt maybe --state-dir state >/dev/null 2>bad.err
expect_eq "an unknown mode is a usage error" 2 $?
finish
