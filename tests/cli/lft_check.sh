#!/usr/bin/env bash
# lft check end to end: OpenSM's dumps check clean, damaged copies are caught (exit 3) with the
# right counts, a ring routed clockwise has a credit loop, bad input exits 1 with file:line, bad
# usage exits 2.
source "$(dirname "$0")/../lib/common.sh"

D="$CLOUDSM_TEST_DATA/lft"
NET="$D/ft2x2.net"

# --- OpenSM's ftree dump on ft2x2 (3 + 3 hosts): 30 pairs, 12 on a leaf (2 hops), 18 across
# (4 hops), mean 96/30 = 3.2. LIDs from the dump's comments.
"$CLOUDSM" lft check "$NET" "$D/ft2x2-ftree.dump" --json --per-link "$WORK/links.csv" >"$WORK/ok.json"
expect_eq "clean dump exits 0" 0 $?
for pair in pairs:30 delivered:30 unreachable:0 loops:0 black_holes:0 wrong_deliveries:0 \
            credit_loops:0 ok:true lids_from:lfts sources:6 destinations:6; do
  expect_eq "ftree ${pair%%:*}" "${pair#*:}" "$(json_get "$WORK/ok.json" "${pair%%:*}")"
done
check "hops mean in JSON" grep -q '"mean": 3.2,' "$WORK/ok.json"
check "hops histogram in JSON" grep -q '"4": 18' "$WORK/ok.json"
check "links summary in JSON" grep -q '"links": {' "$WORK/ok.json"
if command -v python3 >/dev/null; then
  check "JSON parses" python3 -m json.tool "$WORK/ok.json" >/dev/null
fi
# 6 host cables + 8 switch cables = 28 directed links, plus the header. ftree's leaf0 sends
# host3..host5 up ports 5, 6, 7 (3 sources each) and nothing up port 8.
expect_eq "per-link CSV lines" 29 "$(wc -l <"$WORK/links.csv")"
check "leaf0 port 5 carries 3" grep -qx '0x0002c90000000101,5,0x0002c90000000201,1,up,3' "$WORK/links.csv"
check "leaf0 port 8 carries 0" grep -qx '0x0002c90000000101,8,0x0002c90000000202,2,up,0' "$WORK/links.csv"
check "host links carry 5" grep -qx '0x0002c90000001000,1,0x0002c90000000101,1,host_up,5' "$WORK/links.csv"

"$CLOUDSM" lft check "$NET" "$D/ft2x2-ftree.dump" >"$WORK/ok.txt"
check "text says ok" grep -q '^result *ok$' "$WORK/ok.txt"
check "text hop line" grep -q '^hops *min 2, mean 3.200, max 4' "$WORK/ok.txt"
check "text credit loops" grep -q '^credit loops *none' "$WORK/ok.txt"

# minhop's dump, LIDs from the matching guid2lid.
"$CLOUDSM" lft check "$NET" "$D/ft2x2-minhop.dump" --guid2lid "$D/ft2x2.guid2lid" >/dev/null
expect_eq "minhop dump with its guid2lid exits 0" 0 $?
# The other guid2lid is OpenSM's fresh assignment, not the one these tables were made with.
"$CLOUDSM" lft check "$NET" "$D/ft2x2-ftree.dump" --guid2lid "$D/ft2x2-opensm-default.guid2lid" \
  --json >"$WORK/wrong.json"
expect_eq "mismatched LIDs exit 3" 3 $?
expect_eq "mismatched LIDs: nothing delivered" 30 "$(json_get "$WORK/wrong.json" unreachable)"
expect_eq "mismatched LIDs: not ok" false "$(json_get "$WORK/wrong.json" ok)"

# --- A loop: spine0 sends host3 (0x00c1) back down to leaf0, which sends it up to spine0 again.
# host0..host2 loop (3 pairs); host4, host5 sit on host3's leaf and are fine.
awk '/of switch Lid 64 /{spine0=1} /of switch Lid 2 /{spine0=0}
     spine0 && /^0x00c1 /{sub(/^0x00c1 003/, "0x00c1 001")} {print}' \
  "$D/ft2x2-ftree.dump" >"$WORK/loop.dump"
"$CLOUDSM" lft check "$NET" "$WORK/loop.dump" --json >"$WORK/loop.json"
expect_eq "loop exits 3" 3 $?
expect_eq "loop pairs" 3 "$(json_get "$WORK/loop.json" loops)"
expect_eq "loop: others fine" 27 "$(json_get "$WORK/loop.json" delivered)"
check "loop lists leaf0" grep -A3 '"loop": \[' "$WORK/loop.json" | grep -q '"0x0002c90000000101"'
check "loop lists spine0" grep -A3 '"loop": \[' "$WORK/loop.json" | grep -q '"0x0002c90000000201"'
check "outcome counts by id" grep -q '"loop": 3,' "$WORK/loop.json"
"$CLOUDSM" lft check "$NET" "$WORK/loop.dump" >"$WORK/loop.txt"
check "loop described in text" grep -q "'host0' port 1 (0x0002c90000001000) -> LID 0x00c1 ('host3'): loop at switch" "$WORK/loop.txt"

# --- A black hole: leaf0 loses its entry for host4 (0x00c2; only leaf0 sends it out of port 6):
# host0..host2 -> host4 (3 pairs).
grep -v "^0x00c2 006 # Channel Adapter portguid 0x0002c90000001041: 'host4'" "$D/ft2x2-ftree.dump" \
  >"$WORK/hole.dump"
"$CLOUDSM" lft check "$NET" "$WORK/hole.dump" --guid2lid "$D/ft2x2.guid2lid" --json >"$WORK/hole.json"
expect_eq "black hole exits 3" 3 $?
expect_eq "black holes" 3 "$(json_get "$WORK/hole.json" black_holes)"
check "black hole at leaf0, entry 255" grep -q '"switch": "0x0002c90000000101",' "$WORK/hole.json"
check "black hole kind" grep -q '"outcome": "no_entry"' "$WORK/hole.json"

# --- A ring of four switches routed clockwise: every pair delivered, yet a credit loop.
{
  for i in 0 1 2 3; do
    printf 'switchguid=0x%x\nSwitch\t3 "s%d"\n[1]\t"h%d"[1]\n[2]\t"s%d"[3]\n[3]\t"s%d"[2]\n\n' \
      $((0x100 + i)) $i $i $(((i + 1) % 4)) $(((i + 3) % 4))
  done
  for i in 0 1 2 3; do
    printf 'caguid=0x%x\nHca\t1 "h%d"\n[1]\t"s%d"[1]\n\n' $((0x200 + 16 * i)) $i $i
  done
} >"$WORK/ring.topo"
{
  # LIDs: switches 1..4, hosts 5..8 (port GUID = node GUID + 1).
  for i in 0 1 2 3; do
    printf "Unicast lids [0-8] of switch Lid %d guid 0x%016x ('s%d'):\n" $((i + 1)) $((0x100 + i)) $i
    printf "0x%04x 000 # Switch portguid 0x%016x: 's%d'\n" $((i + 1)) $((0x100 + i)) $i
    for j in 0 1 2 3; do
      port=2; [[ $j == "$i" ]] && port=1
      printf "0x%04x %03d # Channel Adapter portguid 0x%016x: 'h%d'\n" $((j + 5)) $port $((0x200 + 16 * j + 1)) $j
    done
    echo "5 lids dumped"
  done
} >"$WORK/ring.dump"
"$CLOUDSM" lft check "$WORK/ring.topo" "$WORK/ring.dump" --json >"$WORK/ring.json"
expect_eq "ring exits 3" 3 $?
expect_eq "ring: all delivered" 0 "$(json_get "$WORK/ring.json" unreachable)"
expect_eq "ring: credit loop" 1 "$(json_get "$WORK/ring.json" credit_loops)"
expect_eq "ring: cycle of 4 links" 4 "$(grep -c '"from": {' "$WORK/ring.json")"
"$CLOUDSM" lft check "$WORK/ring.topo" "$WORK/ring.dump" >"$WORK/ring.txt"
check "ring: text says FOUND" grep -q '^credit loops *FOUND' "$WORK/ring.txt"

# --- Unreadable input: exit 1, one line naming file and line.
sed '4s/^0x0003 001/0x0003 abc/' "$D/ft2x2-ftree.dump" >"$WORK/bad.dump"
"$CLOUDSM" lft check "$NET" "$WORK/bad.dump" 2>"$WORK/err.txt" >/dev/null
expect_eq "bad dump exits 1" 1 $?
check "bad dump: file:line" grep -q "bad.dump:4: " "$WORK/err.txt"
printf 'Switch\t2 "s0"\n[1]\t"nowhere\n' >"$WORK/bad.topo"
"$CLOUDSM" lft check "$WORK/bad.topo" "$D/ft2x2-ftree.dump" 2>"$WORK/err.txt" >/dev/null
expect_eq "bad topology exits 1" 1 $?
check "bad topology: file:line" grep -q "bad.topo:[0-9]*: " "$WORK/err.txt"
"$CLOUDSM" lft check "$NET" "$D/ft2x2-dump_fts-M.txt" 2>"$WORK/err.txt" >/dev/null
expect_eq "multicast-only dump exits 1" 1 $?
check "multicast-only dump: says so" grep -q "found no unicast switch table: multicast tables only" "$WORK/err.txt"
sed 's/ #.*//' "$D/ft2x2-ftree.dump" >"$WORK/no-targets.dump"
"$CLOUDSM" lft check "$NET" "$WORK/no-targets.dump" 2>"$WORK/err.txt" >/dev/null
expect_eq "no LIDs exits 1" 1 $?
check "no LIDs: says which port" grep -q "has no LID" "$WORK/err.txt"
"$CLOUDSM" lft check "$NET" "$D/ft2x2-ftree.dump" --per-link "$WORK/no/such/dir/x.csv" \
  2>/dev/null >/dev/null
expect_eq "unwritable --per-link exits 1" 1 $?
"$CLOUDSM" lft check "$NET" "$WORK/missing.dump" 2>/dev/null
expect_eq "missing file exits 1" 1 $?

# --- Usage.
"$CLOUDSM" lft check "$NET" 2>/dev/null
expect_eq "one argument exits 2" 2 $?
"$CLOUDSM" lft check "$NET" "$D/ft2x2-ftree.dump" --threads 0 2>/dev/null
expect_eq "--threads 0 exits 2" 2 $?
"$CLOUDSM" lft check "$NET" "$D/ft2x2-ftree.dump" --bogus 2>/dev/null
expect_eq "unknown option exits 2" 2 $?
"$CLOUDSM" lft check --help >"$WORK/help.txt"
expect_eq "--help exits 0" 0 $?
check "help has examples" grep -q "^examples:" "$WORK/help.txt"
finish
