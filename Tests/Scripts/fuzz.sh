#!/usr/bin/env bash
# libFuzzer on the binary property-list decoder (package Tests/Fuzz), growing the committed
# corpus in Tests/Fuzz/Corpus. Usage: bash Tests/Scripts/fuzz.sh [SECONDS] (default 600).
# Any crash, ASan report, timeout (5 s) or RSS over 2 GB stops the run and leaves the
# input as Tests/Fuzz/crash-*/timeout-*/oom-*; the script then exits non-zero.
# The corpus is minimised (libFuzzer -merge) at the end, so what is committed stays small;
# the main test suite replays it (ReliabilityTests, "the committed libFuzzer corpus replays").
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../Fuzz"
seconds="${1:-600}"

swift build -c release -Xswiftc -sanitize=fuzzer,address --build-path ../../.build-fuzz
fuzzer="$(swift build -c release --build-path ../../.build-fuzz --show-bin-path)/DecoderFuzzer"

mkdir -p Corpus
# Seeds: a few valid files of every object kind, written by python3's plistlib.
if [ -z "$(ls -A Corpus)" ]; then
    python3 - <<'PY'
import plistlib, datetime
seeds = [
    {}, {"a": 1}, {"s": "text", "u": "ünïcode 🎉", "n": -5, "big": 2**63 - 1, "r": 1.5, "t": True, "f": False},
    {"d": datetime.datetime(2020, 1, 2, 3, 4, 5), "b": b"\x00\x01\x02" * 20},
    {"list": [1, "two", [3, {"four": 4}]], "nested": {"x": {"y": {"z": []}}}},
    [1, 2, 3], "a string", {"k%d" % i: i for i in range(300)},
]
for i, seed in enumerate(seeds):
    with open("Corpus/seed-%d" % i, "wb") as f:
        plistlib.dump(seed, f, fmt=plistlib.FMT_BINARY)
PY
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export ASAN_OPTIONS=detect_leaks=0
# Swift's own crash backtracer would race ASan's report; libFuzzer's is enough.
export SWIFT_BACKTRACE=enable=no
status=0
"$fuzzer" "$work" Corpus -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 -max_len=65536 \
    -print_final_stats=1 -artifact_prefix=./ >"$work/log" 2>&1 || status=$?
grep -v -e 'NEW_FUNC' -e '^#[0-9].*\(NEW\|REDUCE\)' "$work/log" | tail -n 40
if [ "$status" -ne 0 ]; then echo "fuzz.sh: the fuzzer found something (exit $status); see Tests/Fuzz/crash-*" >&2; exit "$status"; fi
# Minimise: the new corpus keeps only inputs that add coverage.
mkdir -p "$work/min"
"$fuzzer" -merge=1 "$work/min" Corpus "$work" 2>&1 | tail -n 2
rm -rf Corpus && mkdir Corpus && cp "$work"/min/* Corpus/
echo "fuzz.sh: $seconds s, no findings; corpus now $(ls Corpus | wc -l) inputs"
