#!/usr/bin/env bash
# Cross-language change latency, side by side (issue 39, item 5): from just before a writer's
# commit call to the change callback in a watcher process, for Swift -> Swift, Swift -> Python,
# Python -> Swift and Python -> Python, in one run: p50, p90, p99, p99.9 per pair, with the load
# average beside them. The Swift ends are `PreferencesWorker timed-write` and `timed-watch`
# (Tests/PreferencesWorker/LatencyCommands.swift); the Python ends are the `swift_preferences`
# package (python/src) through mixed-language-latency.py, which drives the run; see its header.
#
# Usage: bash Benchmarks/mixed-language-latency.sh [--changes N] [--samples DIRECTORY] [BIN-PATH]
#   --changes N   timed changes per pair (default 1000; the goal needs at least 500)
#   --samples D   also write each pair's latencies (µs, one a line) to D/WRITER-WATCHER.txt
#   BIN-PATH      the directory holding PreferencesWorker; by default a release build of it is
#                 made (`swift build -c release --product PreferencesWorker`, a few minutes)
# PYTHONPATH may name another copy of the package; python/src comes first.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
changes=1000 samples=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --changes) changes="$2"; shift 2 ;;
        --samples) samples="$2"; shift 2 ;;
        *) break ;;
    esac
done
if [[ $# -gt 0 ]]; then
    bin="$1"
else
    swift build -c release --product PreferencesWorker >&2
    bin="$(swift build -c release --show-bin-path)"
fi
[[ -x $bin/PreferencesWorker ]] || { echo "mixed-language-latency: no PreferencesWorker in $bin" >&2; exit 1; }
export PYTHONPATH="$PWD/python/src${PYTHONPATH:+:$PYTHONPATH}"
echo "mixed-language-latency: worker $bin/PreferencesWorker at $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $(python3 --version)"
exec python3 Benchmarks/mixed-language-latency.py "$bin/PreferencesWorker" "$changes" ${samples:+"$samples"}
