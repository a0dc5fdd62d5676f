#!/usr/bin/env bash
# The Debian package, built with CPack from this build and installed into a scratch root with
# a fresh dpkg database (dpkg --root ... --unpack, --configure: the host's packages and files are not
# touched, no maintainer script runs), then started as systemd would start it, by a stub:
#   the package: Depends from dpkg-shlibdeps (libibumad3, libc6), Maintainer, Section, and
#     /etc/cloudsm/cloudsmd.conf registered as a conffile;
#   the files: cloudsm, cloudsmd in sbin, the unit in lib/systemd/system, the example
#     configuration (routing_engine ftree), the state directory (0700), the manual pages
#     (man finds cloudsmd through MANPATH);
#   the stub reads the unit: Type=notify; runs its ExecStart from the scratch root with
#     $NOTIFY_SOCKET set and ibsim's umad2sim preloaded (and -d for the state directory, the
#     part StateDirectory= plays); READY=1 arrives, sminfo says master, every port has a LID
#     (ibnetdiscover -p), the example configuration's ftree routed; ExecReload (SIGHUP): RELOADING=1,
#     READY=1; stop (SIGTERM, systemd's KillSignal): STOPPING=1, exit 0.
source "$(dirname "$0")/../lib/common.sh"
require_oracles ibsim sminfo ibnetdiscover smpquery python3 cpack dpkg-deb dpkg dpkg-shlibdeps
LISTEN=$(cd "$(dirname "$0")/../lib" && pwd)/notify_listen.py
cd "$WORK" || exit 1

cpack -G DEB --config "${CLOUDSM_BUILD_DIR:?}/CPackConfig.cmake" -B "$WORK/pkg" >cpack.out 2>&1 ||
  { cat cpack.out; fail "cpack -G DEB"; finish; }
deb=$(ls "$WORK"/pkg/cloudsm_*.deb)
check "a .deb was built ($(basename "$deb"))" test -f "$deb"
dpkg-deb -f "$deb" >control.txt
check "Depends (dpkg-shlibdeps): libibumad3" grep -qE "^Depends: .*libibumad3 \(>= " control.txt
check "Depends (dpkg-shlibdeps): libc6" grep -qE "^Depends: .*libc6 \(>= " control.txt
check "Maintainer" grep -qE "^Maintainer: .+ <.+@.+>$" control.txt
check "Section: net" grep -qx "Section: net" control.txt

# A scratch root with an empty dpkg database. The package has no maintainer scripts, so
# configuring it runs nothing; its dependencies are the host's, not the scratch database's.
R=$WORK/root
mkdir -p "$R/var/lib/dpkg/info" "$R/var/lib/dpkg/updates"
: >"$R/var/lib/dpkg/status"
dpkg --root="$R" --force-not-root --unpack "$deb" >dpkg.out 2>&1 &&
  dpkg --root="$R" --force-not-root --force-depends --configure cloudsm >>dpkg.out 2>&1 ||
  { cat dpkg.out; fail "dpkg --root --unpack, --configure"; finish; }
dpkg --root="$R" -s cloudsm >status.txt
check "dpkg --root: cloudsm installed into the scratch root" grep -qx "Status: install ok installed" status.txt
check "no maintainer scripts" test -z "$(dpkg-deb --ctrl-tarfile "$deb" | tar -t | grep -E 'inst|rm$')"
check "dpkg --root: /etc/cloudsm/cloudsmd.conf is a conffile" \
  grep -qE "^ /etc/cloudsm/cloudsmd.conf [0-9a-f]{32}$" status.txt
for f in usr/bin/cloudsm usr/sbin/cloudsmd usr/lib/systemd/system/cloudsmd.service \
  etc/cloudsm/cloudsmd.conf usr/share/man/man8/cloudsmd.8.gz usr/share/man/man5/cloudsmd.conf.5.gz \
  usr/share/man/man1/cloudsm-sm-querylid.1.gz; do
  [[ -e $R/$f || -e $R/${f%.gz} ]] || fail "not installed: /$f"
done
CHECKS=$((CHECKS + 1))
check "the state directory /var/lib/cloudsm, mode 0700" test "$(stat -c %a "$R/var/lib/cloudsm")" = 700
check "the example configuration routes with ftree" grep -qx "routing_engine ftree" "$R/etc/cloudsm/cloudsmd.conf"
if command -v man >/dev/null; then
  MANPATH=$R/usr/share/man man -w cloudsmd >where.txt 2>&1
  check "man -w cloudsmd in the scratch root (MANPATH)" grep -q "^$R/usr/share/man/man8/cloudsmd.8" where.txt
fi

# ---- the stub for systemd: the unit's lines, run by hand ----
UNIT=$R/usr/lib/systemd/system/cloudsmd.service
unit_key() { sed -nE "s/^$1=(.*)$/\1/p" "$UNIT"; }
check "the unit is Type=notify" test "$(unit_key Type)" = notify
start=$(unit_key ExecStart)
reload=$(unit_key ExecReload)
check "ExecStart: the installed cloudsmd with the example configuration" \
  test "$start" = "/usr/sbin/cloudsmd -c /etc/cloudsm/cloudsmd.conf"
# In the scratch root: its binary and configuration; the state directory is what systemd's
# StateDirectory= would make.
start=${start//\/usr\/sbin\//$R/usr/sbin/}
start=${start//\/etc\//$R/etc/}
start="$start -d $R/var/lib/cloudsm"

"$CLOUDSM" topo gen kary 4 2 -o tree.topo || fail "topo gen"
start_ibsim tree.topo
python3 "$LISTEN" "$WORK/notify.sock" 60 >notify.txt &
listener=$!
SIM_PIDS+=("$listener")
for _ in $(seq 1 50); do [[ -S $WORK/notify.sock ]] && break; sleep 0.1; done
# shellcheck disable=SC2086
NOTIFY_SOCKET=$WORK/notify.sock LD_PRELOAD=$UMAD2SIM $start 2>service.log &
MAINPID=$!
SIM_PIDS+=("$MAINPID")
wait_log notify.txt "^READY=1" 1 30
check "ExecStart: READY=1 arrives" grep -q "^READY=1|STATUS=master SM, 24 nodes, routing ftree" notify.txt
check "sminfo: master" grep -q "SMINFO_MASTER" <(sim sminfo)
sim ibnetdiscover -p >ports.txt 2>/dev/null || fail "ibnetdiscover -p"
nodes=$(awk '$2 > 0 { seen[$4] = 1 } END { print length(seen) }' ports.txt)
check "every node has a LID (ibnetdiscover -p: $nodes of 24)" test "$nodes" -eq 24
check "no port without a LID (ibnetdiscover -p)" test "$(awk '$2 == 0' ports.txt | wc -l)" -eq 0
check "a host port holds a LID (smpquery)" \
  grep -qE "^Lid:\.+[1-9]" <(sim smpquery -D portinfo 0 1)
check "the log went to standard error (the journal's place)" grep -q "waiting for SIGTERM" service.log

eval "reload_cmd=\"$reload\"" # $MAINPID, as systemd substitutes it
# shellcheck disable=SC2154
$reload_cmd
wait_log notify.txt "^READY=1" 2 10
check "ExecReload ($reload_cmd): RELOADING=1" grep -q "^RELOADING=1" notify.txt
check "ExecReload: READY=1 again" test "$(grep -c '^READY=1' notify.txt)" -ge 2
check "ExecReload: the configuration read again" grep -q "SIGHUP: configuration read again" service.log
stop_daemon "$MAINPID"
expect_eq "stop (SIGTERM): exit status" 0 $?
wait_exit "$listener" 10 # it ends at STOPPING=1
check "stop: STOPPING=1" grep -q "^STOPPING=1" notify.txt
check "the host's /var/lib/cloudsm was not used" test ! -e /var/lib/cloudsm/cloudsmd.sock
finish
