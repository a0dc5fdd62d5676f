#!/usr/bin/env bash
# cloudsmd's command line as an operator meets it, without a fabric: --help, --version, usage
# errors (exit 2), bad configuration files (exit 1, one line naming file:line), --dump-config
# (flags over the file, a dump that reads back to itself, an OpenSM 3.3.23 opensm.conf), and the
# log line format.
source "$(dirname "$0")/../lib/common.sh"

: "${CLOUDSM_BUILD_DIR:?CLOUDSM_BUILD_DIR must point at the build directory}"
CLOUDSMD=$CLOUDSM_BUILD_DIR/cloudsmd
[[ -x $CLOUDSMD ]] || { CHECKS=$((CHECKS + 1)); fail "no cloudsmd binary at $CLOUDSMD"; finish; }
cd "$WORK" || exit 1

run() { # run EXPECTED_STATUS CMD...: capture stdout/stderr in $WORK/out, $WORK/err
  local want=$1; shift
  "$@" >"$WORK/out" 2>"$WORK/err"
  local got=$?
  CHECKS=$((CHECKS + 1))
  if [[ $got -eq $want ]]; then echo "ok: exit $got: $*"; else fail "exit $got (want $want): $*"; cat "$WORK/err"; fi
}

# A usage error: exit 2, "cloudsmd: ..." and the hint, nothing on stdout.
usage_error() { # usage_error PATTERN ARGS...
  local pattern=$1; shift
  run 2 "$CLOUDSMD" "$@"
  check "'$*': says '$pattern'" grep -q "^cloudsmd: .*$pattern" "$WORK/err"
  check "'$*': hint to --help" grep -qx "(see: cloudsmd --help)" "$WORK/err"
  expect_eq "'$*': two lines on stderr" 2 "$(wc -l <"$WORK/err")"
  expect_eq "'$*': nothing on stdout" 0 "$(wc -c <"$WORK/out")"
}

# --help teaches: usage, every option with its default, the file, an example, ibsim, exit codes.
run 0 "$CLOUDSMD" --help
check "usage line" grep -q "^usage: cloudsmd" "$WORK/out"
for opt in -c --config -o --once -R --routing-engine -g --port-guid -p --priority -d --state-dir \
           --max-outstanding --timeout --retries --log-level -f --log-file --root-guids \
           --cn-guids --dump-config --help --version; do
  check "--help lists $opt" grep -qE -- "(^|[ ,])$opt([ ,]|$)" "$WORK/out"
done
check "--help gives the window default" grep -q "default 64" "$WORK/out"
check "--help gives the state dir default" grep -q "/var/lib/cloudsm" "$WORK/out"
check "--help has the example" grep -q "cloudsmd -o -R ftree --state-dir /var/lib/cloudsm" "$WORK/out"
check "--help explains ibsim" grep -q "libumad2sim.so" "$WORK/out"
check "--help gives the exit codes" grep -q "0 ok, 1 failed.*2 bad usage" "$WORK/out"
check "--help mentions opensm.conf" grep -q "opensm.conf" "$WORK/out"
check "--help explains SIGHUP" grep -q "^Signals: SIGTERM or SIGINT stop cloudsmd. SIGHUP reopens the log file" "$WORK/out"
run 0 "$CLOUDSMD" -h
run 0 "$CLOUDSMD" --priority 99 --help   # help wins over mistakes
run 0 "$CLOUDSMD" --version
check "--version names the program" grep -qE "^cloudsmd [0-9]+\.[0-9]+" "$WORK/out"

usage_error "unknown option '-x'" -x
usage_error "unknown option '--no-such-flag'" --no-such-flag
usage_error "option '--timeout' needs a value" --timeout
usage_error "option '-p' needs a value" -p
usage_error "option '--once=1' takes no value" --once=1
usage_error "unexpected argument 'extra'" extra
usage_error "--priority: 16 is out of range 0..15" -p 16
usage_error "--max-outstanding: 0 (OpenSM: no limit) is not supported" --max-outstanding 0
usage_error "--max-outstanding: 5000 is out of range 1..4096" --max-outstanding 5000
usage_error "--timeout: 0 is out of range" --timeout 0
usage_error "--retries: 'many' is not a number" --retries many
usage_error "--port-guid: '0xZZ' is not a number" -g 0xZZ
usage_error "--routing-engine: unknown routing engine 'dfsssp' (cloudsm has: ftree, noftree, " -R dfsssp
usage_error "--log-level: 'loud' is not one of" --log-level loud
# A bad flag is bad usage even when the file is bad too.
printf 'sm_priority 99\n' >"$WORK/bad-priority.conf"
usage_error "--timeout: 0" -c "$WORK/bad-priority.conf" --timeout 0

# Bad configuration files: exit 1, one line, file:line and the key.
printf '# cloudsmd\nrouting_engine ftree\nsm_priority 16\n' >"$WORK/bad.conf"
run 1 "$CLOUDSMD" -c "$WORK/bad.conf" --dump-config
expect_eq "bad file: one line on stderr" 1 "$(wc -l <"$WORK/err")"
check "bad file: names file:line and key" grep -qx "cloudsmd: $WORK/bad.conf:3: sm_priority: 16 is out of range 0..15" "$WORK/err"
expect_eq "bad file: nothing dumped" 0 "$(wc -c <"$WORK/out")"
printf 'lmc 1\n' >"$WORK/lmc.conf"
run 1 "$CLOUDSMD" -c "$WORK/lmc.conf" -o
check "lmc 1 refused with file:line" grep -q "^cloudsmd: $WORK/lmc.conf:1: lmc: LMC 1 is not supported" "$WORK/err"
printf 'connect_roots yes\n' >"$WORK/bool.conf"
run 1 "$CLOUDSMD" --config "$WORK/bool.conf"
check "boolean error with file:line" grep -q "^cloudsmd: $WORK/bool.conf:1: connect_roots: 'yes' is not TRUE or FALSE" "$WORK/err"
run 1 "$CLOUDSMD" -c "$WORK/no-such.conf"
check "missing file named" grep -q "^cloudsmd: $WORK/no-such.conf: No such file" "$WORK/err"
run 1 "$CLOUDSMD" -c "$WORK"
check "a directory is not a file" grep -q "is a directory" "$WORK/err"

# --dump-config: defaults, then the file, then flags wherever they stand.
run 0 "$CLOUDSMD" --dump-config
cp "$WORK/out" "$WORK/defaults.conf"
check "defaults: window" grep -qx "max_wire_smps 64" "$WORK/defaults.conf"
check "defaults: engine (OpenSM's)" grep -qx "routing_engine minhop" "$WORK/defaults.conf"
check "defaults: state dir" grep -qx "state_dir /var/lib/cloudsm" "$WORK/defaults.conf"
check "defaults: log to stderr" grep -qx "log_file (null)" "$WORK/defaults.conf"
printf 'sm_priority 3\nrouting_engine minhop\nmax_wire_smps 0x20\nstate_dir /srv/sm # here\ntypo_key 1\ncongestion_control TRUE\n' >"$WORK/site.conf"
run 0 "$CLOUDSMD" -p 5 -c "$WORK/site.conf" --timeout 900 -d "$WORK/state" --dump-config
check "flag before -c wins" grep -qx "sm_priority 5" "$WORK/out"
check "flag after -c wins" grep -qx "transaction_timeout 900" "$WORK/out"
check "flag -d wins" grep -qx "state_dir $WORK/state" "$WORK/out"
check "file value kept (hex read)" grep -qx "max_wire_smps 32" "$WORK/out"
check "file value kept (engine)" grep -qx "routing_engine minhop" "$WORK/out"
check "unknown key warned with file:line" grep -qx "cloudsmd: warning: $WORK/site.conf:5: unknown key 'typo_key' ignored" "$WORK/err"
check "OpenSM key only counted" grep -qx "cloudsmd: note: 1 OpenSM options are not used by cloudsm" "$WORK/err"
cp "$WORK/out" "$WORK/dump1.conf"
run 0 "$CLOUDSMD" -c "$WORK/dump1.conf" --dump-config
check "a dump reads back to itself" cmp -s "$WORK/dump1.conf" "$WORK/out"
expect_eq "a dump has nothing to warn about" 0 "$(wc -c <"$WORK/err")"
run 0 "$CLOUDSMD" -R "ftree,minhop" --dump-config
check "engine list: first kept" grep -qx "routing_engine ftree" "$WORK/out"
check "engine list: note" grep -q "only 'ftree' is used" "$WORK/err"

# An opensm.conf as OpenSM 3.3.23 writes it (opensm -c) loads as it is.
run 0 "$CLOUDSMD" -c "$CLOUDSM_TEST_DATA/sm/opensm-3.3.23.conf" --dump-config
check "opensm.conf: 105 OpenSM keys counted" grep -qx "cloudsmd: note: 105 OpenSM options are not used by cloudsm" "$WORK/err"
expect_eq "opensm.conf: no other warnings" 1 "$(wc -l <"$WORK/err")"
check "opensm.conf: its max_wire_smps honoured" grep -qx "max_wire_smps 4" "$WORK/out"
check "opensm.conf: its log_file honoured" grep -qx "log_file /var/log/opensm.log" "$WORK/out"

# The log: cloudsmd logs the configuration's warnings before it looks for a port, so a run with
# no InfiniBand port (no ibsim preloaded) still shows the line format; it then fails (exit 1).
printf 'typo_key 1\ncongestion_control TRUE\n' >"$WORK/warn.conf"
run 1 timeout -s KILL 60 "$CLOUDSMD" -o -c "$WORK/warn.conf" -d "$WORK/state" -f "$WORK/sm.log" --log-level debug
check "log line format (time, level, file:line)" grep -qE "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z WARN  $WORK/warn.conf:1: unknown key 'typo_key' ignored\$" "$WORK/sm.log"
check "OpenSM key at warn, with file:line" grep -qE "Z WARN  $WORK/warn.conf:2: OpenSM option 'congestion_control' is not used by cloudsm" "$WORK/sm.log"
lines_before=$(wc -l <"$WORK/sm.log")
run 1 timeout -s KILL 60 "$CLOUDSMD" -o -c "$WORK/warn.conf" -d "$WORK/state" -f "$WORK/sm.log" --log-level warn
check "log file appended to" test "$(wc -l <"$WORK/sm.log")" -gt "$lines_before"
check "level filter drops debug" test "$(grep -c ' DEBUG ' "$WORK/sm.log")" -eq "$(head -n "$lines_before" "$WORK/sm.log" | grep -c ' DEBUG ')"
# Files the configuration names are checked before cloudsmd looks for a port: with no port at
# all (no ibsim), a bad one is still what it reports, with file:line.
printf 'Default=0x7fff : ALL ;\nBlue=0x0001 : 0xzz ;\n' >"$WORK/bad-partitions.conf"
printf 'partition_config_file %s\n' "$WORK/bad-partitions.conf" >"$WORK/bad-files.conf"
run 1 timeout -s KILL 60 "$CLOUDSMD" -o -c "$WORK/bad-files.conf" -d "$WORK/state"
check "bad partitions.conf: file:line before any port" grep -q "ERROR $WORK/bad-partitions.conf:2: bad port GUID '0xzz'" "$WORK/err"
check "bad partitions.conf: no port looked for" test -z "$(grep -i "port" "$WORK/err" | grep -v "bad port GUID")"
printf 'root_guid_file %s\n' "$WORK/bad-partitions.conf" >"$WORK/bad-files.conf"
run 1 timeout -s KILL 60 "$CLOUDSMD" -o -c "$WORK/bad-files.conf" -d "$WORK/state" -f "$WORK/files.log"
check "bad root_guid_file: file:line on stderr (the log is a file)" grep -q "^cloudsmd: $WORK/bad-partitions.conf:1: " "$WORK/err"
check "bad root_guid_file: and in the log" grep -q "ERROR $WORK/bad-partitions.conf:1: " "$WORK/files.log"
# The state directory too: a file in its place, or a path too long for the control socket.
: >"$WORK/not-a-dir"
run 1 timeout -s KILL 60 "$CLOUDSMD" -o -d "$WORK/not-a-dir"
check "state_dir that is a file: said before any port" grep -q "ERROR state_dir: $WORK/not-a-dir is not a directory" "$WORK/err"
long=$WORK/$(printf 'd%.0s' $(seq 1 100))
run 1 timeout -s KILL 60 "$CLOUDSMD" -d "$long"
check "state_dir too long for the socket: said before any port" grep -q "ERROR control socket path $long/cloudsmd.sock is too long" "$WORK/err"
run 1 timeout -s KILL 60 "$CLOUDSMD" -o -d "$WORK/state" -f "$WORK/no-such-dir/sm.log"
check "unopenable log file named" grep -q "no-such-dir/sm.log" "$WORK/err"
finish
