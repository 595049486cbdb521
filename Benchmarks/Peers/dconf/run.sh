#!/usr/bin/env bash
# GNOME dconf, measured as a peer: builds dconf-probe.c against Debian's libdconf, starts a
# private session bus and dconf-service with a private HOME (both stopped by their PIDs at
# exit), and runs the probe.
#
#   bash Benchmarks/Peers/dconf/run.sh OUT-DIR [CHANGES] [READ-ROUNDS]
#
# Writes into OUT-DIR: dconf-read.txt ("read-ns N"), dconf-latency-1.txt and
# dconf-latency-16.txt ("latency-us p50 p99 p999 max count"), and the raw samples
# dconf-samples-1.txt / dconf-samples-16.txt (microseconds, one a line). CHANGES defaults
# to 1,000 (the fan-out to 16 watchers uses a fifth of them), READ-ROUNDS to 30.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="$1"
changes="${2:-1000}"
rounds="${3:-30}"
mkdir -p "$out"

# shellcheck source=private-session.sh
source "$here/private-session.sh"
install_missing_packages gcc pkg-config libdconf-dev dconf-service dconf-cli dbus-daemon

work="$(mktemp -d)"
trap 'stop_private_dconf; rm -rf "$work"' EXIT

# shellcheck disable=SC2046  # pkg-config's output is a list of flags
cc -O2 -Wall -Wextra -Werror -o "$work/dconf-probe" "$here/dconf-probe.c" $(pkg-config --cflags --libs dconf)

start_private_dconf "$work"

"$work/dconf-probe" read "$rounds" | tee "$out/dconf-read.txt"
"$work/dconf-probe" latency "$changes" 1 "$out/dconf-samples-1.txt" | tee "$out/dconf-latency-1.txt"
"$work/dconf-probe" latency $(((changes + 4) / 5)) 16 "$out/dconf-samples-16.txt" | tee "$out/dconf-latency-16.txt"
