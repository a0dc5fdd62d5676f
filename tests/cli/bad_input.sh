#!/usr/bin/env bash
# The offline tools never say "ok" about input they did not understand (issue 12, items 8-10):
# input that is not a topology / an LFT dump is an error naming what was expected and what was
# found; truncated and damaged dumps, LIDs beyond the unicast range and LFTs for switches absent
# from the topology are errors; gzip input reads like plain input; /dev/zero is refused within a
# bounded time and memory; lft diff and topo diff share one exit-status rule; random bytes as
# opensm.conf fail without echoing raw bytes.
source "$(dirname "$0")/../lib/common.sh"

D="$CLOUDSM_TEST_DATA/lft"
NET="$D/ft2x2.net"
DUMP="$D/ft2x2-ftree.dump"

run() { # run EXPECTED_STATUS CMD...: stdout in $WORK/out, stderr in $WORK/err
  local want=$1; shift
  "$@" >"$WORK/out" 2>"$WORK/err"
  local got=$?
  CHECKS=$((CHECKS + 1))
  if [[ $got -eq $want ]]; then echo "ok: exit $got: ${*##*/}"; else fail "exit $got (want $want): $*"; cat "$WORK/err"; fi
}
says() { # says DESCRIPTION FIXED-STRING: stderr holds it
  check "$1" grep -qF -- "$2" "$WORK/err"
}
no_ok() { # no_ok DESCRIPTION: stdout does not claim success
  check "$1: no 'result ok'" bash -c "! grep -q 'result *ok' '$WORK/out'"
}

printf 'hello world\n' >"$WORK/junk.txt"
# 4 KB of pseudo-random bytes, the same every run (perl-base is essential in Debian): from
# /dev/urandom, about one run in a hundred began with '@' and met the reader's '@' line rule.
perl -e 'srand(20261127); print map { chr(int(rand(256))) } 1 .. 4096' >"$WORK/random.bin"
# The same without its NULs or newlines: one binary line of text.
tr -d '\000\n' <"$WORK/random.bin" | head -c 2000 >"$WORK/random-text.bin"

# --- "hello world" as the topology: not 0 pairs and "ok".
run 1 "$CLOUDSM" lft check "$WORK/junk.txt" "$DUMP"
says "junk topology: expected and found" \
  "junk.txt: expected an ibnetdiscover or ibsim topology (Switch, Ca or Rt node lines); found no node in text starting \"hello world\""
no_ok "junk topology"

# --- 4 KB of random bytes as a topology and as an LFT dump.
run 1 "$CLOUDSM" topo info "$WORK/random.bin"
check "random topology: binary data or no node" grep -qE "random.bin:[0-9]+: NUL byte: binary data|found no node" "$WORK/err"
run 1 "$CLOUDSM" topo info "$WORK/random-text.bin"
says "random text topology: no node" "random-text.bin: expected an ibnetdiscover or ibsim topology"
check "random bytes are escaped in the message" bash -c "! LC_ALL=C grep -q '[^ -~]' '$WORK/err'"
run 1 "$CLOUDSM" lft convert "$WORK/random.bin"
check "random dump: binary data or no table" grep -qE "random.bin:[0-9]+: NUL byte: binary data|found no unicast switch table" "$WORK/err"
expect_eq "random dump: nothing on stdout" 0 "$(wc -c <"$WORK/out")"

# --- junk as the second argument of lft diff: not "48 removed".
run 1 "$CLOUDSM" lft diff "$DUMP" "$WORK/junk.txt"
says "lft diff junk: expected an LFT dump" "junk.txt: expected an LFT dump"
check "lft diff junk: no 'removed' count" bash -c "! grep -q removed '$WORK/out'"

# --- OpenSM's opensm-subnet.lst (osm_dump.c's layout, one line per link) as a topology.
cat >"$WORK/opensm-subnet.lst" <<'EOF'
{ CA Ports:01 SystemGUID:0002c90000001000 NodeGUID:0002c90000001000 PortGUID:0002c90000001001 VenID:000002C9 DevID:673C Rev:000000A0 {host0 HCA-1} LID:0003 PN:01 } { SW Ports:08 SystemGUID:0002c90000000101 NodeGUID:0002c90000000101 PortGUID:0002c90000000101 VenID:000002C9 DevID:BD36 Rev:000000A0 {leaf0} LID:0001 PN:01 } PHY=4x LOG=ACT SPD=2.5
{ SW Ports:08 SystemGUID:0002c90000000101 NodeGUID:0002c90000000101 PortGUID:0002c90000000101 VenID:000002C9 DevID:BD36 Rev:000000A0 {leaf0} LID:0001 PN:05 } { SW Ports:08 SystemGUID:0002c90000000201 NodeGUID:0002c90000000201 PortGUID:0002c90000000201 VenID:000002C9 DevID:BD36 Rev:000000A0 {spine0} LID:0040 PN:01 } PHY=4x LOG=ACT SPD=2.5
EOF
run 1 "$CLOUDSM" lft check "$WORK/opensm-subnet.lst" "$DUMP"
says "subnet.lst: recognised" "found no node in an OpenSM subnet list (opensm-subnet.lst)"
no_ok "subnet.lst"

# --- An LFT dump given as the topology, a topology as the dump.
run 1 "$CLOUDSM" topo info "$DUMP"
says "dump as topology: says it is an LFT dump" "found no node in an LFT dump"
run 1 "$CLOUDSM" lft convert "$NET"
says "topology as dump: says it is a topology" "found no unicast switch table: a topology"
: >"$WORK/empty"
run 1 "$CLOUDSM" lft convert "$WORK/empty"
says "empty dump" "found no unicast switch table: an empty file"

# --- gzip: a gzipped dump and topology read exactly like the plain ones.
gzip -c "$DUMP" >"$WORK/dump.gz"
gzip -c "$NET" >"$WORK/net.gz"
"$CLOUDSM" lft check "$NET" "$DUMP" --json >"$WORK/plain.json"
run 0 "$CLOUDSM" lft check "$WORK/net.gz" "$WORK/dump.gz" --json
expect_eq "gzip check = plain check" "$(cat "$WORK/plain.json")" "$(cat "$WORK/out")"
expect_eq "gzip: 30 pairs" 30 "$(json_get "$WORK/out" pairs)"
"$CLOUDSM" lft convert "$DUMP" -o "$WORK/plain.dump"
"$CLOUDSM" lft convert "$WORK/dump.gz" -o "$WORK/from-gz.dump"
check "gzip dump converts to the same text" cmp -s "$WORK/plain.dump" "$WORK/from-gz.dump"
TRACE="$CLOUDSM_TEST_DATA/trace/small.csv"
gzip -c "$TRACE" >"$WORK/trace.csv.gz"
"$CLOUDSM" delay eval "$TRACE" --cores 4 --json >"$WORK/trace-plain.json"
run 0 "$CLOUDSM" delay eval "$WORK/trace.csv.gz" --cores 4 --json
expect_eq "gzip CSV trace = plain" "$(cat "$WORK/trace-plain.json")" "$(cat "$WORK/out")"
head -c 300 "$WORK/dump.gz" >"$WORK/cut.gz"
run 1 "$CLOUDSM" lft convert "$WORK/cut.gz"
says "truncated gzip: an error" "truncated or damaged gzip file"

# --- /dev/zero (and a line that never ends) is refused quickly, in bounded memory.
for cmd in "topo info /dev/zero" "lft convert /dev/zero" "lft check $NET /dev/zero"; do
  # shellcheck disable=SC2086
  run 1 timeout 20 /usr/bin/time -f '%M' -o "$WORK/rss" "$CLOUDSM" $cmd
  says "$cmd: line too long" "/dev/zero:1: line longer than 65536 bytes"
  rss=$(tail -n 1 "$WORK/rss")
  check "$cmd: peak RSS $rss KB < 64 MB" test "$rss" -lt 65536
done
run 1 timeout 20 "$CLOUDSM" delay eval /dev/zero --cores 4
says "/dev/zero as a CSV trace" "/dev/zero:1: line longer than 65536 bytes"
run 1 timeout 20 bash -c "yes x | tr -d '\n' | '$CLOUDSM' topo info /dev/stdin"
says "endless line on a pipe" "/dev/stdin:1: line longer than 65536 bytes"

# --- lft check with zero CA pairs is not "ok".
printf 'Switch\t2 "S-1"\t# "lonely" base port 0 lid 1\n' >"$WORK/one-switch.topo"
printf 'Unicast lids [0-1] of switch Lid 1 guid 0x0000000000200000 (%s):\n0x0001 000 # x\n1 lids dumped\n' "'lonely'" \
  >"$WORK/one-switch.dump"
run 1 "$CLOUDSM" lft check "$WORK/one-switch.topo" "$WORK/one-switch.dump"
says "zero pairs: says why" "nothing to check: 0 CA ports with a LID as sources and 0 destination LIDs"
no_ok "zero pairs"

# --- A LID above 49151 in a topology: file:line.
sed 's/base port 0 lid 1/base port 0 lid 49152/' "$WORK/one-switch.topo" >"$WORK/lid49152.topo"
run 1 "$CLOUDSM" topo info "$WORK/lid49152.topo"
says "LID 49152: file:line" "lid49152.topo:1: LID 49152 is beyond the unicast range (0 to 49151)"
sed 's/base port 0 lid 1/base port 0 lid 49151/' "$WORK/one-switch.topo" >"$WORK/lid49151.topo"
run 0 "$CLOUDSM" topo info "$WORK/lid49151.topo"

# --- Reversed ranges and truncated or damaged dumps.
sed '1s/\[0-256\]/[0x100-0x2]/' "$DUMP" >"$WORK/reversed.dump"
run 1 "$CLOUDSM" lft check "$NET" "$WORK/reversed.dump"
says "reversed range: file:line" "reversed.dump:1: reversed LID range [0x100-0x2]"
lines=$(wc -l <"$DUMP")
head -n $((lines - 3)) "$DUMP" >"$WORK/truncated.dump"
run 1 "$CLOUDSM" lft check "$NET" "$WORK/truncated.dump"
check "truncated dump: file:line, truncated" grep -qE "truncated.dump:$((lines - 3)): the file ends inside the table of switch 0x[0-9a-f]{16} \(line [0-9]+\), before its \"lids dumped\" footer: the dump is truncated" "$WORK/err"
no_ok "truncated dump"
sed '0,/^256 lids dumped/s//200 lids dumped/' "$DUMP" >"$WORK/miscounted.dump"
run 1 "$CLOUDSM" lft check "$NET" "$WORK/miscounted.dump"
says "miscounted footer" "footer says 200 lids dumped"

# --- LFTs for switches absent from the topology: an error unless --allow-extra.
{ cat "$DUMP"; printf 'Unicast lids [0-1] of switch Lid 9 guid 0x00000000deadbeef (%s):\n0x0001 001\n1 lids dumped\n' "'stranger'"; } \
  >"$WORK/extra.dump"
run 1 "$CLOUDSM" lft check "$NET" "$WORK/extra.dump"
says "extra switch: named" "extra.dump: 1 switch table for switches not in the topology (the first: 0x00000000deadbeef)"
no_ok "extra switch"
run 0 "$CLOUDSM" lft check "$NET" "$WORK/extra.dump" --allow-extra
check "--allow-extra: checked, and the extra table is reported" grep -q "1 LFTs for switches not in the topology" "$WORK/out"
run 1 "$CLOUDSM" analyze "$NET" "$WORK/extra.dump" --pattern shift
says "analyze: extra switch refused too" "switch table for switches not in the topology"
run 0 "$CLOUDSM" analyze "$NET" "$WORK/extra.dump" --pattern shift --allow-extra

# --- One exit-status rule for lft diff and topo diff: 0 equal, 3 different, 1 error, 2 usage.
run 0 "$CLOUDSM" lft diff "$DUMP" "$DUMP"
run 3 "$CLOUDSM" lft diff "$DUMP" "$D/ft2x2-minhop.dump"
run 1 "$CLOUDSM" lft diff "$DUMP" "$WORK/no-such.dump"
run 2 "$CLOUDSM" lft diff "$DUMP"
run 0 "$CLOUDSM" topo diff "$NET" "$NET"
run 3 "$CLOUDSM" topo diff "$NET" "$CLOUDSM_TEST_DATA/ring6.net"
run 1 "$CLOUDSM" topo diff "$NET" "$WORK/junk.txt"
run 2 "$CLOUDSM" topo diff "$NET"
for cmd in "lft diff" "topo diff"; do
  # shellcheck disable=SC2086
  "$CLOUDSM" $cmd --help >"$WORK/help"
  check "$cmd --help: documents the exit status" grep -q "exit status: 0 identical.*, 3 different, 1 failed (unreadable input), 2 bad usage" "$WORK/help"
done

# --- Random bytes as opensm.conf: cloudsmd fails (exit 1) and prints no raw byte.
if [[ -n ${CLOUDSM_BUILD_DIR:-} && -x $CLOUDSM_BUILD_DIR/cloudsmd ]]; then
  CLOUDSMD=$CLOUDSM_BUILD_DIR/cloudsmd
  printf 'sm_priority 3\n\033[2J\376\200key 1\n' >"$WORK/escape.conf"
  run 1 "$CLOUDSMD" -c "$WORK/escape.conf"
  says "binary key: file:line, escaped" "escape.conf:2: key '\\x1b[2J\\xfe\\x80key' has bytes that are not printable ASCII"
  for conf in random.bin random-text.bin; do
    run 1 "$CLOUDSMD" -c "$WORK/$conf"
    check "$conf as opensm.conf: only printable ASCII on stderr" bash -c "! LC_ALL=C grep -q '[^ -~]' '$WORK/err'"
  done
else
  CHECKS=$((CHECKS + 1))
  fail "no cloudsmd binary (CLOUDSM_BUILD_DIR)"
fi

finish
