# Shared by the bench/ scripts (sourced, from the repository root).

# bench_build: the Debian packages the benchmarks run against, and a release build of cloudsm.
bench_build() {
  scripts/deps test >/dev/null
  cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build build/release >/dev/null
}

# median < numbers: the median (the mean of the middle two for an even count).
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
