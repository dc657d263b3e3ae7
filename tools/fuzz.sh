#!/usr/bin/env bash
# Fuzzes mpc's readers and compiler with libFuzzer (tests/fuzz/): builds the
# fuzz targets with clang 19, AddressSanitizer and UndefinedBehaviorSanitizer
# into the build of tools/run-tests.sh --sanitize=address,undefined
# (build-address-undefined/), then runs each target in turn.
#
#   tools/fuzz.sh SECONDS [TARGET...]    each target for SECONDS seconds
#   tools/fuzz.sh --runs N [TARGET...]   each target for N inputs (the test
#                                        suite's short form)
#
# TARGET: bundle manifest safetensors npy dataset graph (default: all).
# Each target starts from its seeds (tests/fuzz/corpus/TARGET, and the
# examples for graph) and keeps what it finds new in BUILD/corpus/TARGET,
# so that later runs go on from there. An input that fails is saved as
# BUILD/findings/TARGET-crash-... (or -timeout-, -oom-, -leak-); copy it
# into tests/fuzz/corpus/TARGET/ as crash-NAME once fixed, and the test suite
# replays it from then on. A summary table (executions, speed, coverage,
# findings) goes to standard output and BUILD/summary.md.
# Exits non-zero when any target found a failing input.
#   BUILD_DIR  BUILD, where to build (default: <repo>/build-address-undefined)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build-address-undefined}
all_targets=(bundle manifest safetensors npy dataset graph)

usage() { sed -n '2,18p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 2; }
limit=()
case "${1:-}" in
  --runs) [[ "${2:-}" =~ ^[0-9]+$ ]] || usage; limit=(-runs="$2"); what="$2 inputs"; shift 2 ;;
  ''|-h|--help) usage ;;
  *) [[ "$1" =~ ^[0-9]+$ ]] || usage; limit=(-max_total_time="$1"); what="$1 s"; shift ;;
esac
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")
for t in "${targets[@]}"; do
  [[ " ${all_targets[*]} " == *" $t "* ]] || { echo "fuzz.sh: unknown target '$t' (${all_targets[*]})" >&2; exit 2; }
done

"$root/tools/setup/install-deps.sh"
command -v clang++-19 >/dev/null || { echo "fuzz.sh: clang++-19 is missing (tools/setup/install-deps.sh installs it)" >&2; exit 1; }

if [ ! -f "$build/build.ninja" ]; then
  # The configuration of tools/run-tests.sh --sanitize=address,undefined,
  # whose build this is.
  CC=clang-19 CXX=clang++-19 cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DMPC_SANITIZE=address,undefined -DMPC_FUZZ=ON
fi
ninja -C "$build" -j "$(nproc 2>/dev/null || echo 2)" "${targets[@]/#/mpc-fuzz-}"

# Leaks count (each input is parsed and freed); an input may take 20 s
# (a graph compiled twice) and 2 GiB. allow_user_poisoning=0: see
# tools/run-tests.sh (LLVM's allocator, inlined into mpc's instrumented
# code, against Debian's uninstrumented MLIR).
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:allow_user_poisoning=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
mkdir -p "$build/findings" "$build/logs"
summary="$build/summary.md"
{
  echo "| target | inputs run | inputs/s | coverage (edges) | corpus | findings |"
  echo "|---|---:|---:|---:|---:|---|"
} > "$summary"
failed=0
for t in "${targets[@]}"; do
  corpus="$build/corpus/$t"
  mkdir -p "$corpus"
  seeds=("$root/tests/fuzz/corpus/$t")
  [ "$t" = graph ] && seeds+=("$root/examples")
  log="$build/logs/$t.log"
  echo "fuzz.sh: $t for $what (log: $log)"
  rm -f "$build/findings/$t-"*
  status=0
  # -max_len: the largest seed (a bundle with its host kernels) fits.
  (cd "$build/findings" && TMPDIR="$build" "$build/bin/mpc-fuzz-$t" "${limit[@]}" -seed=1 \
      -timeout=20 -rss_limit_mb=2048 -max_len=131072 -print_final_stats=1 \
      -artifact_prefix="$build/findings/$t-" "$corpus" "${seeds[@]}") > "$log" 2>&1 || status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  coverage=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  files=$(find "$corpus" -type f | wc -l)
  findings=$(cd "$build/findings" && ls "$t-"* 2>/dev/null | tr '\n' ' ' || true)
  if [ "$status" -ne 0 ] || [ -n "$findings" ]; then
    failed=1
    findings="${findings:-exit status $status} (see $log)"
  fi
  echo "| $t | ${runs:-?} | ${speed:-?} | ${coverage:-?} | $files | ${findings:-none} |" >> "$summary"
done
cat "$summary"
exit "$failed"
