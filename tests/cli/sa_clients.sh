#!/usr/bin/env bash
# `cloudsm pathcache` and `cloudsm saflood` as a user meets them without a fabric: help with
# examples, usage errors (exit 2, the option named), bad input files (exit 1, file:line), and a
# clear error when there is no InfiniBand port (this test runs without ibsim; the integration
# tests cloudsm_pathcache and cloudsm_saflood run both commands on one).
source "$(dirname "$0")/../lib/common.sh"
cd "$WORK" || exit 1

run() { # run EXPECTED_STATUS CMD...: stdout in out, stderr in err
  local want=$1; shift
  "$@" >out 2>err
  expect_eq "exit status of: ${*#"$CLOUDSM" }" "$want" $?
}

for cmd in pathcache saflood; do
  run 0 "$CLOUDSM" $cmd --help
  check "$cmd --help: a usage line" grep -q "^usage: cloudsm $cmd" out
  check "$cmd --help: examples" grep -q "^examples:" out
  check "cloudsm help lists $cmd" bash -c "'$CLOUDSM' help | grep -q '^  $cmd '"
done

# pathcache: usage errors.
run 2 "$CLOUDSM" pathcache
check "no peer: says what a peer is" grep -q "name at least one PEER" err
run 2 "$CLOUDSM" pathcache lid:0
check "LID 0: the range" grep -q "peer 'lid:0': a LID is 1 to 49151" err
run 2 "$CLOUDSM" pathcache 49152
run 2 "$CLOUDSM" pathcache fe80::1::2
check "a broken GID: named" grep -q "peer 'fe80::1::2'" err
run 2 "$CLOUDSM" pathcache 0x0010000000000101 --probe-interval 0
check "--probe-interval 0: named" grep -q -- "--probe-interval is a time in milliseconds" err
run 2 "$CLOUDSM" pathcache 0x0010000000000101 --duration -1
run 2 "$CLOUDSM" pathcache 0x0010000000000101 --sa-retries 101
check "--sa-retries 101: named" grep -q -- "--sa-retries is a count 0..100" err
run 2 "$CLOUDSM" pathcache 0x0010000000000101 --no-cache --invalidate-on-failure
check "extras without the cache: refused" grep -q "the cache extras need the cache" err
run 2 "$CLOUDSM" pathcache 0x0010000000000101 --port 1
check "--port without --ca" grep -q -- "--port needs --ca" err
run 1 "$CLOUDSM" pathcache 0x0010000000000101 -o no-such-dir/report.json
check "report in a missing directory: refused before any work" grep -q "no-such-dir" err
# pathcache --peers: the file's errors (file:line, exit 1), and not with PEERs on the command line.
printf 'fe80::200:0:0:1 vm-1\n' >peers
run 2 "$CLOUDSM" pathcache --peers peers 0x0010000000000101
check "--peers and PEERs: refused" grep -q "on the command line or with --peers, not both" err
printf '# the VM\nfe80::200:0:0:1 vm-1\nlid:0 lb\n' >bad.peers
run 1 "$CLOUDSM" pathcache --peers bad.peers
check "a bad peers line: file:line and the address" \
  grep -q "bad.peers:3: peer address \"lid:0\": a LID is 1 to 49151" err
printf 'fe80::200:0:0:1 vm\n0x0010000000000101 vm\n' >twice.peers
run 1 "$CLOUDSM" pathcache --peers twice.peers
check "a name twice: both lines" grep -q "twice.peers:2: peer name 'vm' is used twice (line 1)" err
printf 'fe80::200:0:0:1\n' >noname.peers
run 1 "$CLOUDSM" pathcache --peers noname.peers
check "no name: says what a line holds" grep -q "noname.peers:1: expected a name after the address" err
printf '# nobody\n' >empty.peers
run 1 "$CLOUDSM" pathcache --peers empty.peers
check "no peers in the file: says so" grep -q "empty.peers: no peers in it" err
run 1 "$CLOUDSM" pathcache --peers missing.peers
check "a missing peers file: named" grep -q "missing.peers" err
run 2 "$CLOUDSM" pathcache "$(printf 'fe80::%.0s' {1..20})"
check "a peer address too long: cut and named" grep -q "an address has at most 63 characters" err

# No port here: one clear line, exit 1.
run 1 "$CLOUDSM" pathcache 0x0010000000000101 --duration 1
expect_eq "no port: one line on stderr" 1 "$(wc -l <err)"
check "no port: says so" grep -qi "InfiniBand port" err
run 1 "$CLOUDSM" pathcache --peers peers --trust-dlid --duration 1
check "no port, with --peers: says so" grep -qi "InfiniBand port" err

# saflood: usage errors and input files.
printf '0x0010000000000101 0x0003 0x0003\n0x0010000000000201 0x0004 0x0004\n' >hosts
run 2 "$CLOUDSM" saflood -m 2
check "no --targets: says so" grep -q -- "--targets FILE is required" err
run 2 "$CLOUDSM" saflood --targets hosts -n 17
check "-n 17: the range" grep -q -- "-n (MIFs) is 0..16" err
run 2 "$CLOUDSM" saflood --targets hosts -n 1 --sim-hosts a,b,c
check "three hosts for two flooders: says how many" grep -q -- "--sim-hosts names 2 hosts" err
run 2 "$CLOUDSM" saflood --targets hosts -n 1 --ports mlx5_0:1,mlx5_0
check "a port without a number: named" grep -q "'mlx5_0' is not CA:PORT" err
run 2 "$CLOUDSM" saflood --targets hosts --only MIF1
check "--only without --start-at" grep -q -- "--only needs --start-at" err
run 2 "$CLOUDSM" saflood --targets hosts --start-at 5
run 2 "$CLOUDSM" saflood --targets hosts --collect 0
run 1 "$CLOUDSM" saflood --targets missing.lids
check "a missing targets file: named" grep -q "missing.lids" err
printf '0x0010000000000101 0x0003 0x0003\n0x0010000000000201 lid\n' >bad.lids
run 1 "$CLOUDSM" saflood --targets bad.lids
check "a bad targets line: file:line" grep -q "bad.lids:2:" err
: >empty.lids
run 1 "$CLOUDSM" saflood --targets empty.lids
check "no targets: says so" grep -q "no ports in it" err
# No port here: the flooder says so, exit 1, no flooder process left behind.
run 1 "$CLOUDSM" saflood --targets hosts -m 1 -n 1 --collect 0.2 --gap 0
check "no port: the flooder names the problem" grep -q "flooder SIF: no active local InfiniBand port" err
finish
