#!/usr/bin/env bash
# set's tail beside a background flush, two builds side by side in one run (issue 37, item 5):
# each round runs `core-latency reads SAMPLES` of each build in turn, quiet and then with a
# CPU hog (two busy shell loops, one per core) as the control that shows what the machine
# itself adds, and prints the medians over the rounds of each build's `set` rows (p50, p99,
# p99.9, p99.99 in ns, and p99.9 / p50), with the load average and the steal time (CPU time the
# virtual machine's host took away during the runs, from /proc/stat). The "control" row is a busy
# loop as long as a set's median, timed the same way: what the machine adds to any window that wide.
#
#   bash Benchmarks/set-tail.sh BEFORE_BINARY AFTER_BINARY [ROUNDS [SAMPLES]]
#
# Build each with `swift build -c release --product core-latency` in its checkout's Benchmarks/.
set -euo pipefail
before=${1:?usage: set-tail.sh BEFORE_BINARY AFTER_BINARY [ROUNDS [SAMPLES]]}
after=${2:?usage: set-tail.sh BEFORE_BINARY AFTER_BINARY [ROUNDS [SAMPLES]]}
rounds=${3:-5}
samples=${4:-1000000}
log=$(mktemp)
hogs=()
trap 'rm -f "$log"; for pid in "${hogs[@]}"; do kill "$pid" 2>/dev/null || true; done' EXIT

for condition in quiet cpu-hog; do
    if [[ $condition == cpu-hog ]]; then
        for _ in 1 2; do bash -c 'while :; do :; done' & hogs+=($!); done
    fi
    for round in $(seq "$rounds"); do
        for build in before after; do
            binary=$before
            [[ $build == after ]] && binary=$after
            echo "load $(cut -d' ' -f1-3 /proc/loadavg)" | sed "s/^/$condition\t$build\t/" >>"$log"
            steal_before=$(awk '/^cpu /{ print $9 }' /proc/stat)
            "$binary" reads "$samples" | awk -F'\t' -v c="$condition" -v b="$build" '$1 == "set" { print c "\t" b "\t" $0 }' >>"$log"
            echo "steal $(( $(awk '/^cpu /{ print $9 }' /proc/stat) - steal_before ))" | sed "s/^/$condition\t$build\t/" >>"$log"
        done
    done
    for pid in "${hogs[@]}"; do kill "$pid" 2>/dev/null || true; done
    hogs=()
done

python3 - "$log" <<'PY'
import os, statistics, sys
rows, loads, steals = {}, {}, {}
ticks = os.sysconf("SC_CLK_TCK")
for line in open(sys.argv[1]):
    fields = line.rstrip("\n").split("\t")
    condition, build = fields[0], fields[1]
    if fields[2].startswith("load "):
        loads.setdefault((condition, build), []).append(float(fields[2].split()[1]))
        continue
    if fields[2].startswith("steal "):
        steals.setdefault((condition, build), []).append(int(fields[2].split()[1]) / ticks)
        continue
    name, values = fields[3], [int(v) for v in fields[4:8]]
    rows.setdefault((condition, name, build), []).append(values)
print("| condition | row | build | p50 | p99 | p99.9 | p99.99 | p99.9 / p50 | load (1 min) at start | steal per run |")
print("|---|---|---|---|---|---|---|---|---|---|")
for (condition, name, build), runs in sorted(rows.items(), key=lambda item: (item[0][0] != "quiet", item[0][1], item[0][2] != "before")):
    medians = [statistics.median(run[i] for run in runs) for i in range(4)]
    load = loads.get((condition, build), [0])
    steal = steals.get((condition, build), [0])
    cells = [f"{m / 1000:.2f} µs" for m in medians]
    print(f"| {condition} | {name} | {build} | " + " | ".join(cells) + f" | {medians[2] / medians[0]:.0f}× | {min(load):.1f}–{max(load):.1f} | {min(steal):.2f}–{max(steal):.2f} s |")
PY
