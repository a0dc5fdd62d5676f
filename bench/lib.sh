# Shared by the bench/ scripts (sourced, from the repository root).

# stop_daemon, wait_exit: bounded stops (a process under umad2sim can hang at exit).
source tests/lib/stop_daemon.sh

# bench_build: the Debian packages the benchmarks run against, and a release build of cloudsm.
bench_build() {
  scripts/deps test >/dev/null
  cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build build/release >/dev/null
}

# median < numbers: the median (the mean of the middle two for an even count).
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

# leaf_hosts TOPO: "leaf-switch-GUID host-port-GUID" per CA port, from an ibnetdiscover file.
leaf_hosts() {
  awk '/^(Ca|Hca)\t/ { ca = 1; next } /^Switch\t/ { ca = 0; next }
       ca && /^\[[0-9]+\]\(/ { match($0, /\([0-9a-f]+\)/); port = substr($0, RSTART + 1, RLENGTH - 2)
                               match($0, /"S-[0-9a-f]+"/); leaf = substr($0, RSTART + 3, RLENGTH - 4)
                               print "0x" leaf, "0x" port }' "$1"
}
