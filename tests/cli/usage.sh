#!/usr/bin/env bash
# The command line as a user meets it: help for every command, usage errors (exit 2), bad
# input (exit 1, one line naming file:line), and outputs that are never left half-written.
source "$(dirname "$0")/../lib/common.sh"

run() { # run EXPECTED_STATUS CMD...: capture stdout/stderr in $WORK/out, $WORK/err
  local want=$1; shift
  "$@" >"$WORK/out" 2>"$WORK/err"
  local got=$?
  CHECKS=$((CHECKS + 1))
  if [[ $got -eq $want ]]; then echo "ok: exit $got: $*"; else fail "exit $got (want $want): $*"; cat "$WORK/err"; fi
}

run 2 "$CLOUDSM"
run 0 "$CLOUDSM" help
check "overview lists every command" grep -q "topo gen" "$WORK/out"
for cmd in "topo gen" "topo info" "topo lids" "topo diff" "lft diff" "lft convert"; do
  run 0 "$CLOUDSM" $cmd --help
  check "'$cmd --help' has a usage line" grep -q "^usage: cloudsm $cmd" "$WORK/out"
  check "'$cmd --help' has an example" grep -q "example" "$WORK/out"
  run 0 "$CLOUDSM" help $cmd
done
run 2 "$CLOUDSM" nonsense
run 2 "$CLOUDSM" topo nonsense
run 2 "$CLOUDSM" topo gen kary 4
run 2 "$CLOUDSM" topo gen kary 4 x
run 2 "$CLOUDSM" topo gen xgft "3;1,2"
check "spec error explains the form" grep -q "h;m1,..,mh" "$WORK/err"
run 2 "$CLOUDSM" topo gen kary 4 3 --no-such-option
run 2 "$CLOUDSM" topo info
run 2 "$CLOUDSM" lft diff only-one

# Bad input: exit 1 and exactly one line on stderr that says file:line.
printf 'Switch\t4 "S-1"\n[1]\t"H-1"[1]\n[9]\t"H-1"[2]\n\nCa\t2 "H-1"\n[1]\t"S-1"[1]\n' >"$WORK/bad.topo"
run 1 "$CLOUDSM" topo info "$WORK/bad.topo"
expect_eq "one line on stderr" 1 "$(wc -l <"$WORK/err")"
check "error names file:line" grep -q "^cloudsm topo info: $WORK/bad.topo:3: " "$WORK/err"
run 1 "$CLOUDSM" topo info "$WORK/does-not-exist"
check "missing file named" grep -q "does-not-exist" "$WORK/err"

printf 'Unicast lids [0-3] of switch Lid 1 guid 0x0000000000000001 (%s):\n0x0001 000\n0xZZ 1\n' "'s'" >"$WORK/bad.lfts"
run 1 "$CLOUDSM" lft diff "$WORK/bad.lfts" "$WORK/bad.lfts"
check "LFT error names file:line" grep -q "$WORK/bad.lfts:3: " "$WORK/err"

# Outputs: nothing half-written, an existing file kept when the command fails.
run 1 "$CLOUDSM" topo gen kary 4 3 -o "$WORK/no-such-dir/out.topo"
check "no file created" test ! -e "$WORK/no-such-dir"
echo keep >"$WORK/keep.topo"
run 1 "$CLOUDSM" topo gen xgft "2;4,4;1,4" --hosts-per-leaf 9 -o "$WORK/keep.topo"
expect_eq "old output kept on failure" keep "$(cat "$WORK/keep.topo")"
run 0 "$CLOUDSM" topo gen kary 2 2 -o "$WORK/ok.topo"
check "no temporary files left" test "$(ls "$WORK" | grep -c tmp)" -eq 0
finish
