#!/usr/bin/env bash
# VL assignment on ibsim (issue 13): the SLs a routing engine gives partitions become SL2VL
# tables and PathRecord SLs.
#
#   ftree   puts every partition on SL 0: the sl2vl phase sends no SMP, the tables stay what ibsim
#           holds (`smpquery sl2vl`: SL s -> VL s, SL 15 -> VL 7), PathRecords carry SL 0
#   pftree  puts partitions that share links on SLs 1..: every CA port's table and every switch
#           (input, output) table reads SL s -> VL s for s < 8 and VL 0 beyond (ibsim's links
#           have VL0-7); `saquery -p` between two members of a partition carries the SL cloudsmd
#           logged for it, between members of two others their own; a restart sends no table
#
# The SA's SL2VLTableRecords (`saquery SL2VL`) show the tables as the SM read and programmed them:
# none under ftree (the SM read none), under pftree every CA's and every (input, output) table of
# two switches the same as `smpquery sl2vl` reads from the port.
source "$(dirname "$0")/../lib/common.sh"
require_oracles ibsim smpquery saquery
CLOUDSMD=${CLOUDSM_BUILD_DIR:?}/cloudsmd
cd "$WORK" || exit 1

# 4-ary-2-tree: 16 hosts H-0010000000000000 .. H-0010000000000f00 (port GUID +1), 8 switches.
# Blue and Red both reach host 5 (leaf 1) from leaf 0: whatever spine carries host 5's LID, both
# use its link down to leaf 1, so pftree must put them on two VLs.
"$CLOUDSM" topo gen kary 4 2 -o tree.topo || fail "topo gen"
cat >partitions.conf <<'EOF'
Default=0x7fff : ALL=full ;
Blue=0x0001, isolation=vlane : 0x0010000000000101=full, 0x0010000000000501=full ;
Red=0x0002, isolation=vlane : 0x0010000000000201=full, 0x0010000000000501=full ;
EOF

lid_of() { awk -v g="$1" '$1 == g {print $2 + 0}' state/guid2lid; }
sl_of_path() { # sl_of_path HOST SLID DLID: the SL of the PathRecord saquery prints, asked from HOST
  local sl  # a requester shares a partition with both ends (Default members are limited)
  sl=$(SIM_HOST=$1 sim saquery -p --src-to-dst "$2:$3" 2>/dev/null | sed -nE 's/^[[:space:]]*sl\.+(0x[0-9a-f]+)$/\1/p')
  [[ -n $sl ]] && echo $((sl))
}
vls() { # vls ROW: the 16 VLs of a smpquery row or a saquery "VL:" line, space-separated
  tr -c '0-9\n' ' ' <<<"$1" | xargs
}
sa_row() { # sa_row LID/IN/OUT: the VLs of the one SL2VLTableRecord saquery shows, or nothing
  local out
  out=$(SIM_HOST=H-0010000000000000 sim saquery SL2VL "$1" 2>/dev/null)
  [[ $(grep -c 'SL2VLTableRecord dump' <<<"$out") == 1 ]] && vls "$(sed -n 's/^[[:space:]]*VL://p' <<<"$out")"
}
row() { # row LID [PORT]: the SL2VL rows smpquery prints (a CA's one, a switch's input ports)
  sim smpquery sl2vl "$@" 2>/dev/null | grep -E '^ports:|^\s*\|' | sed -E 's/^.*: \|/|/'
}

start_cloudsmd() { # start_cloudsmd CONFIG LOG: cloudsmd as a daemon, until it serves
  LD_PRELOAD="$UMAD2SIM" "$CLOUDSMD" -c "$1" --state-dir state --log-file "$2" >/dev/null 2>&1 &
  daemon=$!
  SIM_PIDS+=("$daemon")
  wait_log "$2" "waiting for SIGTERM" 1 60
  check "cloudsmd up with $1" grep -q "waiting for SIGTERM" "$2"
}
stop_cloudsmd() { stop_daemon "$daemon"; }

# ---- ftree: every partition on SL 0 ----
start_ibsim tree.topo
IBSIM_DEFAULT='| 0| 1| 2| 3| 4| 5| 6| 7| 8| 9|10|11|12|13|14| 7|'
mkdir -p state
printf 'routing_engine ftree\npartition_config_file %s\n' "$WORK/partitions.conf" >ftree.conf
start_cloudsmd ftree.conf ftree.log
check "ftree: no SL in use, nothing programmed" grep -q "sl2vl: every partition on SL 0" ftree.log
expect_eq "ftree: SMPs of the sl2vl phase" 0 \
  "$(sed -nE 's/.*sl2vl took [0-9.]+ ms, ([0-9]+) SMPs.*/\1/p' ftree.log)"
blue1=$(lid_of 0x0010000000000101) blue5=$(lid_of 0x0010000000000501)
red2=$(lid_of 0x0010000000000201)
expect_eq "ftree: host 1's table as ibsim holds it" "$IBSIM_DEFAULT" "$(row "$blue1")"
expect_eq "ftree: Blue path SL" 0 "$(sl_of_path H-0010000000000100 "$blue1" "$blue5")"
expect_eq "ftree: Red path SL" 0 "$(sl_of_path H-0010000000000200 "$red2" "$blue5")"
expect_eq "ftree: SL2VLTableRecords (the SM read no table)" 0 \
  "$(SIM_HOST=H-0010000000000000 sim saquery SL2VL 2>/dev/null | grep -c 'SL2VLTableRecord dump')"
stop_cloudsmd


# ---- pftree: partitions that share links on SLs of their own ----
sed 's/^routing_engine ftree/routing_engine pftree/' ftree.conf >pftree.conf
start_cloudsmd pftree.conf pftree.log
blue_sl=$(sed -nE 's/.*sl2vl: partition Blue \(0x0001\) on SL ([0-9]+).*/\1/p' pftree.log)
red_sl=$(sed -nE 's/.*sl2vl: partition Red \(0x0002\) on SL ([0-9]+).*/\1/p' pftree.log)
check "pftree: Blue on an SL other than 0 ($blue_sl)" test "${blue_sl:-0}" -gt 0
check "pftree: Red on an SL other than 0 ($red_sl)" test "${red_sl:-0}" -gt 0
sent=$(sed -nE 's/.*sl2vl: SLs 0\.\.[0-9]+ on VLs of their own, ([0-9]+) tables read back, ([0-9]+) tables sent.*/\1 \2/p' pftree.log)
read_back=${sent% *} sent=${sent#* }
# 16 CA ports; 4 leaves with 8 linked ports (9 inputs x 8 outputs), 4 spines with 4 (5 x 4).
expect_eq "pftree: tables read back" $((16 + 4 * 9 * 8 + 4 * 5 * 4)) "$read_back"
expect_eq "pftree: tables sent (ibsim's default differs for SLs 8..15)" "$read_back" "$sent"
RULE='| 0| 1| 2| 3| 4| 5| 6| 7| 0| 0| 0| 0| 0| 0| 0| 0|'
bad=0 tables=0
while read -r guid lid _; do
  lid=$((lid))
  if [[ $guid == 0x0010* ]]; then
    tables=$((tables + 1))
    [[ $(row "$lid") == "$RULE" ]] || { bad=$((bad + 1)); echo "CA $guid: $(row "$lid")"; }
  fi
done < <(grep '^0x' state/guid2lid)
# Every switch's linked ports (LID, then the port numbers), from ibnetdiscover.
sim ibnetdiscover 2>/dev/null | awk '
  /^Switch/ { if (lid) print lid, ports; match($0, /lid [0-9]+/); lid = substr($0, RSTART + 4, RLENGTH - 4); ports = "" }
  /^\[[0-9]+\]/ && lid { match($0, /[0-9]+/); ports = ports " " substr($0, RSTART, RLENGTH) }
  /^(Ca|Hca)/ { if (lid) print lid, ports; lid = "" }
  END { if (lid) print lid, ports }' >switch_ports
while read -r swlid linked; do
  for out in $linked; do
    while read -r in vls; do
      [[ " 0 $linked " == *" $in "* ]] || continue # only inputs the SM programs
      tables=$((tables + 1))
      [[ $vls == "$RULE" ]] || { bad=$((bad + 1)); echo "switch $swlid in $in out $out: $vls"; }
    done < <(sim smpquery sl2vl "$swlid" "$out" 2>/dev/null |
               sed -nE 's/^ports: in +([0-9]+), out +[0-9]+: (.*)$/\1 \2/p')
  done
done <switch_ports
expect_eq "pftree: tables checked with smpquery" "$read_back" "$tables"
expect_eq "pftree: tables not SL s -> VL s (s < 8), VL 0 beyond" 0 "$bad"
# The SA shows what the ports hold: every CA's table (input and output port 0, as OpenSM), and
# every table of the first and the last switch ibnetdiscover lists.
sa_tables=0 sa_bad=0
while read -r guid lid _; do
  [[ $guid == 0x0010* ]] || continue
  sa_tables=$((sa_tables + 1))
  [[ $(sa_row "$((lid))/0/0") == "$(vls "$(row "$((lid))")")" ]] || { sa_bad=$((sa_bad + 1)); echo "SA: CA $guid"; }
done < <(grep '^0x' state/guid2lid)
for sw in "$(sed -n 1p switch_ports)" "$(sed -n '$p' switch_ports)"; do
  read -r swlid linked <<<"$sw"
  for out in $linked; do
    while read -r in row_vls; do
      [[ " 0 $linked " == *" $in "* ]] || continue
      sa_tables=$((sa_tables + 1))
      [[ $(sa_row "$swlid/$in/$out") == "$(vls "$row_vls")" ]] ||
        { sa_bad=$((sa_bad + 1)); echo "SA: switch $swlid in $in out $out: $(sa_row "$swlid/$in/$out")"; }
    done < <(sim smpquery sl2vl "$swlid" "$out" 2>/dev/null |
               sed -nE 's/^ports: in +([0-9]+), out +[0-9]+: (.*)$/\1 \2/p')
  done
done
check "pftree: SL2VLTableRecords compared ($sa_tables)" test "$sa_tables" -ge $((16 + 2 * 5 * 4))
expect_eq "pftree: SL2VLTableRecords not what smpquery reads" 0 "$sa_bad"
expect_eq "pftree: Blue path SL" "$blue_sl" "$(sl_of_path H-0010000000000100 "$blue1" "$blue5")"
expect_eq "pftree: Red path SL" "$red_sl" "$(sl_of_path H-0010000000000200 "$red2" "$blue5")"
default_sl=$(sed -nE 's/.*sl2vl: partition Default \(0x7fff\) on SL ([0-9]+).*/\1/p' pftree.log)
expect_eq "pftree: Default path SL (hosts 3 and 7)" "${default_sl:-0}" \
  "$(sl_of_path H-0010000000000300 "$(lid_of 0x0010000000000301)" "$(lid_of 0x0010000000000701)")"
stop_cloudsmd

start_cloudsmd pftree.conf restart.log
expect_eq "pftree restart: tables sent" 0 \
  "$(sed -nE 's/.*sl2vl: SLs 0\.\.[0-9]+ on VLs of their own, [0-9]+ tables read back, ([0-9]+) tables sent.*/\1/p' restart.log)"
expect_eq "pftree restart: Blue path SL" "$blue_sl" "$(sl_of_path H-0010000000000100 "$blue1" "$blue5")"
stop_cloudsmd
finish
