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
swift build -c release --product core-latency >/dev/null
harness="$(swift build -c release --show-bin-path)/cross-process-latency"
core="$(swift build -c release --show-bin-path)/core-latency"
"$harness" "$changes" 1 "$work/ours-samples-1.txt" | tee "$work/ours-latency-1.txt"
"$harness" $(((changes + 4) / 5)) 16 "$work/ours-samples-16.txt" | tee "$work/ours-latency-16.txt"

# Fan-out: the same harness with 4 to 1,024 watching processes (fewer changes: each waits for
# every watcher; past fs.inotify.max_user_instances, 128 here, watchers sleep on the commit
# counter and poll once a second for changes made outside the library).
# 1,024 watchers: 1,024 processes, most without inotify, woken through the commit counter.
if [[ $mode == smoke ]]; then fanout="4:5"; else fanout="4:200 64:50 256:50 1024:10"; fi
for pair in $fanout; do
    watchers=${pair%%:*} count=${pair##*:}
    echo "fan-out (ours): $count changes to $watchers watchers"
    "$harness" "$count" "$watchers" "$work/ours-samples-$watchers.txt" | tee "$work/ours-latency-$watchers.txt"
done

# Read and set tails under load, flush cost by domain size, memory per open domain
# (Harness/CoreLatency).
if [[ $mode == smoke ]]; then reads=20000 repeats=2 domains=3 commits=20 history=40 catchups=50; else reads=2000000 repeats=20 domains=50 commits=200 history=1000 catchups=3000; fi
echo "core latency (ours): $reads reads a row, flush scale $repeats repeats, memory over $domains domains"
{ "$core" reads "$reads"; "$core" scale "$repeats"; "$core" memory "$domains"; "$core" schema "$reads"; "$core" commits "$commits"; "$core" history "$history"; "$core" catch-up "$catchups" 0; "$core" catch-up "$catchups" 1; } | tee "$work/core-latency.txt"

echo "dconf (peer): cached read, $changes changes to 1 watcher, $(((changes + 4) / 5)) to 16"
bash "$here/Peers/dconf/run.sh" "$work" "$changes" "$rounds"

# Fleet policy: a put in a three-member etcd cluster on loopback to the change callback in a
# program here, through preferences-fleet, and the recovery after the leader is killed.
echo "fleet policy (ours): etcd put → callback, and recovery after leader loss"
if [[ $mode == smoke ]]; then
    bash "$here/fleet-latency.sh" --smoke "$work/fleet-latency.md"
else
    bash "$here/fleet-latency.sh" "$work/fleet-latency.md"
fi

cut -d' ' -f1-3 /proc/loadavg >"$work/load-end.txt"
/usr/bin/python3 "$here/report.py" "$work" "$out_markdown" "$out_png"
[[ -s $out_png ]] || { echo "report: no plot written" >&2; exit 1; }
if [[ $mode == smoke ]]; then
    grep -q '^| cross-process set → callback, p50' "$out_markdown" || { echo "report: no cross-process row" >&2; exit 1; }
    grep -q '^| same store set+flush loop: bool(forKey:)' "$out_markdown" || { echo "report: no read-tail row" >&2; exit 1; }
    grep -q '^| 25,000 |' "$out_markdown" || { echo "report: no flush-scale row" >&2; exit 1; }
    grep -q '^| 4 |' "$out_markdown" || { echo "report: no fan-out row" >&2; exit 1; }
    [[ -s $work/scale-curves.png ]] || { echo "report: no scale plot written" >&2; exit 1; }
    grep -q '^| first open in a process: 200-key schema' "$out_markdown" || { echo "report: no schema row" >&2; exit 1; }
    grep -q '^| transaction of 10 keys' "$out_markdown" || { echo "report: no transaction row" >&2; exit 1; }
    grep -q '^| durable flush keeping generations' "$out_markdown" || { echo "report: no history row" >&2; exit 1; }
    grep -q '^## Fleet policy' "$out_markdown" || { echo "report: no fleet policy section" >&2; exit 1; }
    echo "benchmark report (smoke): every part ran"
fi
