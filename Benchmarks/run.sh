#!/usr/bin/env bash
# Runs the benchmarks (package-benchmark, release build) and checks that every one of them
# ran and reported no problem.
#
#   bash Benchmarks/run.sh            the full run, about 1.5 minutes once built
#   bash Benchmarks/run.sh --smoke    one or two iterations of each benchmark, so the test
#                                     suite notices when a benchmark stops building or running
#   bash Benchmarks/run.sh [--smoke] --filter 'Codec: decode .*'   (extra options go to the
#                                     benchmark plugin; --filter must match whole names)
#
# Fails (exit 1) if the run fails, a benchmark reports an error (a hostile file accepted,
# a codec call throwing), a benchmark prints a WARNING (our bytes and Foundation's not
# reading back to the same value, a hostile file refused for the wrong reason or taking
# 50 ms or more), or, without extra options, fewer or more benchmarks ran than expected.
# The first build from a clean checkout takes about 2.5 minutes.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"

# Keep in step with the Benchmark(...) registrations in Benchmarks/*/ (8 codec, 6 hostile, 21 store).
expected_benchmarks=35

mode=full
if [[ ${1:-} == --smoke ]]; then
    mode=smoke
    shift
fi

bash "$root/Tests/Scripts/install-dependencies.sh"

cd "$here"
if [[ $mode == smoke ]]; then
    # Read by the benchmark targets: a couple of iterations each, no warm-up.
    export SWIFT_PREFERENCES_BENCHMARK_SMOKE=1
fi

# report.sh reads the tables back from a copy of the log.
log="${SWIFT_PREFERENCES_BENCHMARK_LOG:-$(mktemp)}"
[[ -n ${SWIFT_PREFERENCES_BENCHMARK_LOG:-} ]] || trap 'rm -f "$log"' EXIT

start=$SECONDS
set +e
swift package --allow-writing-to-package-directory benchmark --no-progress "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e

problems=()
if ((status != 0)); then
    problems+=("swift package benchmark exited with status $status")
fi
if grep -E '^(WARNING:|FAILED:)|^Benchmark .* failed with ' "$log" >/dev/null; then
    problems+=("a benchmark reported a problem:")
    while IFS= read -r line; do problems+=("  $line"); done \
        < <(grep -E '^(WARNING:|FAILED:)|^Benchmark .* failed with ' "$log")
fi
# A benchmark that ran prints its name on a line of its own followed by its table; one
# that failed prints no table, and the plugin still exits 0.
ran=$(awk '/^(Codec|Hostile input|Store): / { name = 1; next } name && /^╒/ { count++ } { name = 0 } END { print count + 0 }' "$log")
if (($# == 0)) && ((ran != expected_benchmarks)); then
    problems+=("$ran benchmarks produced results; expected $expected_benchmarks")
elif ((ran == 0)); then
    problems+=("no benchmark produced results")
fi

echo
if ((${#problems[@]})); then
    printf 'benchmarks (%s): FAILED after %d s\n' "$mode" $((SECONDS - start)) >&2
    printf '  %s\n' "${problems[@]}" >&2
    exit 1
fi
echo "benchmarks ($mode): $ran ran, no problems, $((SECONDS - start)) s"
