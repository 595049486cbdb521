#!/usr/bin/env bash
# libFuzzer on the binary property-list decoder or on schema reading (package Tests/Fuzz),
# growing the committed corpus in Tests/Fuzz/Corpus (decoder) or Tests/Fuzz/SchemaCorpus
# (schema). Usage: bash Tests/Scripts/fuzz.sh [SECONDS] [decoder|schema] (default 600 decoder).
# The committed schema corpus is every third input of a 180 s run (509 files, 2 MB), to keep
# the repository small; a run regrows it from there.
# Any crash, ASan report, timeout (5 s) or RSS over 2 GB stops the run and leaves the
# input as Tests/Fuzz/crash-*/timeout-*/oom-*; the script then exits non-zero.
# The corpus is minimised (libFuzzer -merge) at the end, so what is committed stays small;
# the main test suite replays it (ReliabilityTests, "the committed libFuzzer corpus replays").
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../Fuzz"
seconds="${1:-600}"
target="${2:-decoder}"
case $target in
decoder) product=DecoderFuzzer corpus=Corpus ;;
schema) product=SchemaFuzzer corpus=SchemaCorpus ;;
*) echo "fuzz.sh: unknown target '$target' (decoder or schema)" >&2; exit 2 ;;
esac

swift build -c release -Xswiftc -sanitize=fuzzer,address --build-path ../../.build-fuzz
fuzzer="$(swift build -c release --build-path ../../.build-fuzz --show-bin-path)/$product"

mkdir -p "$corpus"
# Schema seeds: native schemas (XML and binary) and a Settings.bundle with child panes, in the
# fuzzer's input shape (a first byte choosing the reader, panes split at 0xFF).
if [ "$target" = schema ] && [ -z "$(ls -A "$corpus")" ]; then
    python3 - <<'PY'
import plistlib
native = {"Domain": "com.example.fuzz", "Keys": {
    "Volume": {"Type": "integer", "Default": 5, "Minimum": 0, "Maximum": 10, "Summary": "s", "RenamedFrom": ["Old"]},
    "Theme": {"Type": "string", "Default": "a", "Choices": ["a", "b"], "ChoiceTitles": ["A", "B"]},
    "Ratio": {"Type": "real", "Default": 0.5, "Minimum": 0, "Maximum": 1},
    "Ports": {"Type": "array", "ElementType": "integer", "Default": [80]},
    "When": {"Type": "date"}, "Blob": {"Type": "data"}, "On": {"Type": "boolean", "Default": True},
    "Extra": {"Type": "dictionary", "Default": {"k": 1}}}}
root = {"PreferenceSpecifiers": [
    {"Type": "PSGroupSpecifier", "Title": "G"},
    {"Type": "PSToggleSwitchSpecifier", "Key": "T", "DefaultValue": True, "TrueValue": "YES", "FalseValue": "NO"},
    {"Type": "PSMultiValueSpecifier", "Key": "M", "Values": [1, 2], "Titles": ["one", "two"], "DefaultValue": 1},
    {"Type": "PSSliderSpecifier", "Key": "S", "MinimumValue": 0, "MaximumValue": 1, "DefaultValue": 0.5},
    {"Type": "PSTextFieldSpecifier", "Key": "F", "DefaultValue": "x"},
    {"Type": "PSTitleValueSpecifier", "Key": "V", "DefaultValue": "1.0"},
    {"Type": "PSChildPaneSpecifier", "File": "A"}]}
pane = {"PreferenceSpecifiers": [{"Type": "PSRadioGroupSpecifier", "Key": "R", "Values": ["a", "b"], "DefaultValue": "a"},
                                 {"Type": "PSChildPaneSpecifier", "File": "B"}]}
leaf = {"PreferenceSpecifiers": [{"Type": "PSTextFieldSpecifier", "Key": "L"}]}
seeds = {
    "seed-native-xml": b"\x00" + plistlib.dumps(native, fmt=plistlib.FMT_XML),
    "seed-native-binary": b"\x00" + plistlib.dumps(native, fmt=plistlib.FMT_BINARY),
    "seed-bundle-binary": b"\x01" + b"\xff".join(plistlib.dumps(v, fmt=plistlib.FMT_BINARY) for v in (root, pane, leaf)),
    "seed-bundle-xml": b"\x01" + plistlib.dumps(root, fmt=plistlib.FMT_XML),
}
for name, data in seeds.items():
    with open("SchemaCorpus/" + name, "wb") as f:
        f.write(data)
PY
fi
# Seeds: a few valid files of every object kind, written by python3's plistlib.
if [ "$target" = decoder ] && [ -z "$(ls -A "$corpus")" ]; then
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
"$fuzzer" "$work" "$corpus" -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 -max_len=65536 \
    -print_final_stats=1 -artifact_prefix=./ >"$work/log" 2>&1 || status=$?
grep -v -e 'NEW_FUNC' -e '^#[0-9].*\(NEW\|REDUCE\)' "$work/log" | tail -n 40
if [ "$status" -ne 0 ]; then echo "fuzz.sh: the fuzzer found something (exit $status); see Tests/Fuzz/crash-*" >&2; exit "$status"; fi
# Minimise: the new corpus keeps only inputs that add coverage.
mkdir -p "$work/min"
"$fuzzer" -merge=1 "$work/min" "$corpus" "$work" 2>&1 | tail -n 2
rm -rf "$corpus" && mkdir "$corpus" && cp "$work"/min/* "$corpus"/
echo "fuzz.sh: $target, $seconds s, no findings; corpus now $(ls "$corpus" | wc -l) inputs"
