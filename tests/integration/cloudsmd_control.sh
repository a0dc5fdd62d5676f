#!/usr/bin/env bash
# cloudsmd's control socket under a flood of idle connections (issue 12 item 5): while 200
# clients connect and say nothing, and are replaced as soon as the daemon drops them, the SA
# answers every query within 1 s, a cable pulled on ibsim is repaired by a heavy sweep, and
# afterwards `cloudsm sm status` answers at once with 20 idle connections open. An empty request
# and a 4096-byte one get their documented error lines.
source "$(dirname "$0")/../lib/common.sh"
require_oracles ibsim saquery python3
FLOOD=$(cd "$(dirname "$0")/../lib" && pwd)/control_flood.py
cd "$WORK" || exit 1

# 4-ary-2-tree: 16 hosts, 8 switches; leaf S-0020000100000000 port 5 goes to S-0020000200000000 port 1.
"$CLOUDSM" topo gen kary 4 2 -o tree.topo || fail "topo gen"
IBSIM_CONSOLE=1 start_ibsim tree.topo
printf 'sweep_interval 1\n' >sm.conf
start_cloudsmd_daemon sm.log -R ftree -c sm.conf --state-dir state
SOCK=state/cloudsmd.sock

# ms_of CMD...: run CMD (output to $WORK/last.out), print how long it took in ms.
ms_of() {
  local t0 t1
  t0=$(date +%s%N)
  "$@" >"$WORK/last.out" 2>&1
  t1=$(date +%s%N)
  echo $(((t1 - t0) / 1000000))
}
max_ms() { # max_ms N CMD...: the slowest of N runs of CMD, in ms; 99999 if one failed
  local n=$1 worst=0 ms; shift
  for _ in $(seq 1 "$n"); do
    ms=$(ms_of "$@") || { echo 99999; return; }
    grep -q "NodeRecord dump" "$WORK/last.out" || { echo 99999; return; }
    ((ms > worst)) && worst=$ms
  done
  echo "$worst"
}
baseline=$(max_ms 5 sim saquery NR 1)
echo "saquery without idle clients: slowest of 5: $baseline ms"

# The flood: 200 idle connections for 8 s, each one replaced as soon as the daemon drops it.
python3 "$FLOOD" "$SOCK" 200 8 --reopen >flood.out &
flood=$!
sleep 1.5
worst=$(max_ms 8 sim saquery NR 1)
check "saquery during the flood: slowest of 8 within 1 s ($worst ms)" test "$worst" -lt 1000
sweeps=$(grep -c "sweep done" sm.log)
ibsim_cmd 'Unlink "S-0020000100000000"[5]'
for _ in $(seq 1 50); do [[ $(grep -c "sweep done" sm.log) -gt $sweeps ]] && break; sleep 0.1; done
check "a pulled cable is repaired by a heavy sweep during the flood" \
  test "$(grep -c "sweep done" sm.log)" -gt "$sweeps"
wait_exit "$flood" 30 # an 8 s flood
cat flood.out
read -r _ opened _ backlog_full _ dropped <flood.out
check "the flood kept the table full (connections opened: $opened > 200)" test "$opened" -gt 200
check "idle connections were dropped with an error line ($dropped)" test "$dropped" -ge 32
check "the backlog filled up too ($backlog_full connects refused)" test "$backlog_full" -gt 0
check "cloudsmd is still running" kill -0 "$daemon"

# 20 idle connections (fewer than the table holds): status answers as if they were not there.
python3 "$FLOOD" "$SOCK" 20 3 >idle.out &
idle=$!
sleep 0.5
ms=$(ms_of "$CLOUDSM" sm status -d state --json)
expect_eq "sm status with 20 idle connections open" master \
  "$(json_get "$WORK/last.out" state)"
check "sm status answered within 500 ms ($ms ms)" test "$ms" -lt 500
wait_exit "$idle" 15 # 3 s
ibsim_cmd 'Link "S-0020000100000000"[5] "S-0020000200000000"[1]'

# An empty request and one of 4096 bytes without a newline: their error lines.
reply() { # reply BYTES: what the daemon answers to exactly BYTES (python escapes)
  python3 - "$SOCK" "$1" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(5)
s.connect(sys.argv[1])
s.sendall(eval(sys.argv[2]))
print(b"".join(iter(lambda: s.recv(65536), b"")).decode(), end="")
PY
}
expect_eq "an empty request" \
  "error: empty request (commands: status, topology, lfts, reroute, log-level, sweep, vm-list, vm-create, vm-migrate, vm-destroy, adapt, priority, resweep, querylid, portstatus, lidbalance)" \
  "$(reply 'b"\n"')"
expect_eq "a 4096-byte request" "error: request longer than 4095 bytes" "$(reply 'b"x" * 4096')"
check "the flood is in the log: idle connections dropped at their deadline" \
  grep -q "control: bad request from uid .* no request line within 1000 ms" sm.log

stop_daemon "$daemon"
expect_eq "cloudsmd stops cleanly" 0 $?
finish
