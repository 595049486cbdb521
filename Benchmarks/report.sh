#!/usr/bin/env bash
# The whole benchmark suite in one command: package-benchmark (codec, hostile input, store,
# beside Foundation), the cross-process latency of ours (Harness/CrossProcess) and of GNOME
# dconf (Peers/dconf), then Benchmarks/RESULTS.md and Benchmarks/cross-process-latency.png.
#
#   bash Benchmarks/report.sh           the full run, about 6 minutes once built; writes
#                                       RESULTS.md and the plot
#   bash Benchmarks/report.sh --smoke   a few iterations and changes of everything (part of
#                                       Tests/Scripts/run-all.sh); writes the report into a
#                                       temporary directory and leaves RESULTS.md alone
#
# Installs what it needs (libdconf-dev, dconf-service, dconf-cli, dbus-daemon,
# python3-matplotlib) as root; fails if any part fails.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
mode=full
[[ ${1:-} == --smoke ]] && mode=smoke

bash "$root/Tests/Scripts/install-dependencies.sh"
if ! dpkg-query -W -f='${Status}' python3-matplotlib 2>/dev/null | grep -q "install ok installed"; then
    echo "installing: python3-matplotlib"
    export DEBIAN_FRONTEND=noninteractive
    apt-get -o DPkg::Lock::Timeout=600 update -q
    apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends python3-matplotlib
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# Other work on the machine skews every figure: the report shows the load before and after.
cut -d' ' -f1-3 /proc/loadavg >"$work/load-start.txt"

if [[ $mode == smoke ]]; then
    export SWIFT_PREFERENCES_BENCHMARK_SMOKE=1
    changes=20 rounds=3
    out_markdown="$work/RESULTS.md" out_png="$work/cross-process-latency.png"
    SWIFT_PREFERENCES_BENCHMARK_LOG="$work/benchmarks.log" bash "$here/run.sh" --smoke
else
    changes=1000 rounds=30
    out_markdown="$here/RESULTS.md" out_png="$here/cross-process-latency.png"
    SWIFT_PREFERENCES_BENCHMARK_LOG="$work/benchmarks.log" bash "$here/run.sh"
fi

echo "cross-process latency (ours): $changes changes to 1 watcher, $(((changes + 4) / 5)) to 16"
cd "$here"
swift build -c release --product cross-process-latency >/dev/null
harness="$(swift build -c release --show-bin-path)/cross-process-latency"
"$harness" "$changes" 1 "$work/ours-samples-1.txt" | tee "$work/ours-latency-1.txt"
"$harness" $(((changes + 4) / 5)) 16 "$work/ours-samples-16.txt" | tee "$work/ours-latency-16.txt"

echo "dconf (peer): cached read, $changes changes to 1 watcher, $(((changes + 4) / 5)) to 16"
bash "$here/Peers/dconf/run.sh" "$work" "$changes" "$rounds"

cut -d' ' -f1-3 /proc/loadavg >"$work/load-end.txt"
/usr/bin/python3 "$here/report.py" "$work" "$out_markdown" "$out_png"
[[ -s $out_png ]] || { echo "report: no plot written" >&2; exit 1; }
if [[ $mode == smoke ]]; then
    grep -q '^| cross-process set → callback, p50' "$out_markdown" || { echo "report: no cross-process row" >&2; exit 1; }
    echo "benchmark report (smoke): every part ran"
fi
