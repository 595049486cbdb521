#!/usr/bin/env bash
# Fleet-policy latency: an etcd put → the change callback of a program's store, through
# `preferences-fleet` and the managed layer, and how long a leader's SIGKILL interrupts that
# (Harness/FleetLatency, against a 3-member etcd on loopback that it starts itself).
#
#   bash Benchmarks/fleet-latency.sh [--smoke] [OUTPUT.md [SAMPLES.txt]]
#
# Builds preferences-fleet and fleet-latency in release, runs the harness (500 puts and 5
# leader kills; --smoke: 10 puts and 1 kill) and writes its Markdown block to OUTPUT.md
# (standard output when not given), and the raw samples to SAMPLES.txt if given.
# Needs etcd (Debian's etcd-server package). FLEET_LATENCY_SCRATCH and
# FLEET_LATENCY_HARNESS_SCRATCH choose other build folders than the packages' .build.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"

smoke=0
positional=()
for argument in "$@"; do
    case "$argument" in
        --smoke) smoke=1 ;;
        -*) echo "fleet-latency.sh: unknown option $argument" >&2; exit 2 ;;
        *) positional+=("$argument") ;;
    esac
done
output="${positional[0]:-}"
samples="${positional[1]:-}"

command -v etcd >/dev/null || [[ -x /usr/bin/etcd ]] || {
    echo "fleet-latency.sh: needs etcd (apt-get install etcd-server)" >&2
    exit 1
}

service_scratch="${FLEET_LATENCY_SCRATCH:-$root/.build}"
harness_scratch="${FLEET_LATENCY_HARNESS_SCRATCH:-$here/.build}"
swift build -c release --package-path "$root/Tools" --scratch-path "$service_scratch" --product preferences-fleet >&2
swift build -c release --package-path "$here" --scratch-path "$harness_scratch" --product fleet-latency >&2
service="$(swift build -c release --package-path "$root/Tools" --scratch-path "$service_scratch" --show-bin-path)/preferences-fleet"
harness="$(swift build -c release --package-path "$here" --scratch-path "$harness_scratch" --show-bin-path)/fleet-latency"

arguments=("$service")
if ((smoke)); then arguments+=(--puts 10 --kills 1); fi
[[ -n $samples ]] && arguments+=(--samples "$samples")

block="$(mktemp)"
trap 'rm -f "$block"' EXIT
"$harness" "${arguments[@]}" >"$block"
grep -q '^| etcd put → change callback' "$block" || { echo "fleet-latency.sh: no latency row" >&2; exit 1; }
if ((smoke)); then
    grep -q '^| leader SIGKILL → first callback' "$block" || { echo "fleet-latency.sh: no recovery row" >&2; exit 1; }
fi
if [[ -n $output ]]; then cp "$block" "$output"; else cat "$block"; fi
