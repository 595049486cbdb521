#!/usr/bin/env bash
# A change → a service's handler seeing it, through swift-configuration's ConfigReader: our
# PreferencesProvider beside swift-configuration's own ReloadingFileProvider over a JSON file
# at its guide's poll interval (15 s) and at 1 s, in one run, and ours over HTTP through the
# example server preferences-config-server (Harness/ConfigLatency).
#
#   bash Benchmarks/config-latency.sh [--smoke] [OUTPUT.md]
#
# Builds preferences-config-server and config-latency in release and runs the harness: 1,000
# changes through ours, 300 over HTTP, 20 through the 15 s provider and 100 through the 1 s
# one, about 5 minutes (the 15 s provider's); --smoke: 20, 20, 1 and 3. Writes its Markdown
# block to OUTPUT.md (standard output when not given). CONFIG_LATENCY_SCRATCH and
# CONFIG_LATENCY_HARNESS_SCRATCH choose other build folders than the packages' .build.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"

smoke=0
output=
for argument in "$@"; do
    case "$argument" in
        --smoke) smoke=1 ;;
        -*) echo "config-latency.sh: unknown option $argument" >&2; exit 2 ;;
        *) output="$argument" ;;
    esac
done

server_scratch="${CONFIG_LATENCY_SCRATCH:-$root/Tools/.build}"
harness_scratch="${CONFIG_LATENCY_HARNESS_SCRATCH:-$here/.build}"
swift build -c release --package-path "$root/Tools" --scratch-path "$server_scratch" --product preferences-config-server >&2
swift build -c release --package-path "$here" --scratch-path "$harness_scratch" --product config-latency >&2
server="$(swift build -c release --package-path "$root/Tools" --scratch-path "$server_scratch" --show-bin-path)/preferences-config-server"
harness="$(swift build -c release --package-path "$here" --scratch-path "$harness_scratch" --show-bin-path)/config-latency"

arguments=(--server "$server")
if ((smoke)); then arguments+=(--ours 20 --http 20 --json-15s 1 --json-1s 3); fi

block="$(mktemp)"
trap 'rm -f "$block"' EXIT
"$harness" "${arguments[@]}" >"$block"
grep -q '^| ours: `PreferencesProvider`' "$block" || { echo "config-latency.sh: no row for ours" >&2; exit 1; }
grep -q '^| `ReloadingFileProvider<JSONSnapshot>`, poll interval 15 s' "$block" || { echo "config-latency.sh: no row for the 15 s provider" >&2; exit 1; }
if [[ -n $output ]]; then cp "$block" "$output"; else cat "$block"; fi
