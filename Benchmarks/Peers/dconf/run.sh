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

packages=(gcc pkg-config libdconf-dev dconf-service dconf-cli dbus-daemon)
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
    echo "installing: ${missing[*]}"
    # Another process may hold the dpkg lock: wait for it rather than failing.
    export DEBIAN_FRONTEND=noninteractive
    apt-get -o DPkg::Lock::Timeout=600 update -q
    apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "${missing[@]}"
fi

work="$(mktemp -d)"
bus_pid=""
service_pid=""
cleanup() {
    [[ -n $service_pid ]] && kill -TERM "$service_pid" 2>/dev/null && wait "$service_pid" 2>/dev/null
    [[ -n $bus_pid ]] && kill -TERM "$bus_pid" 2>/dev/null && wait "$bus_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

# shellcheck disable=SC2046  # pkg-config's output is a list of flags
cc -O2 -Wall -Wextra -Werror -o "$work/dconf-probe" "$here/dconf-probe.c" $(pkg-config --cflags --libs dconf)

# dconf keeps its database in $XDG_CONFIG_HOME/dconf/user and its change flag in
# $XDG_RUNTIME_DIR/dconf/user: both private to this run.
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_RUNTIME_DIR="$work/run"
mkdir -p "$XDG_CONFIG_HOME" && mkdir -m 700 "$XDG_RUNTIME_DIR"
export DBUS_SESSION_BUS_ADDRESS="unix:path=$work/bus"
# (Its complaint that it may not raise its fd limit, as non-init root, is harmless.)
dbus-daemon --session --nofork --nopidfile --address="$DBUS_SESSION_BUS_ADDRESS" 2>/dev/null &
bus_pid=$!
for _ in $(seq 100); do [[ -S $work/bus ]] && break; sleep 0.05; done
[[ -S $work/bus ]] || { echo "dconf: the private session bus did not start" >&2; exit 1; }
# Started here rather than by bus activation, so this script knows its PID.
/usr/libexec/dconf-service &
service_pid=$!
for _ in $(seq 100); do
    dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
        org.freedesktop.DBus.NameHasOwner string:ca.desrt.dconf 2>/dev/null | grep -q 'boolean true' && break
    sleep 0.05
done

"$work/dconf-probe" read "$rounds" | tee "$out/dconf-read.txt"
"$work/dconf-probe" latency "$changes" 1 "$out/dconf-samples-1.txt" | tee "$out/dconf-latency-1.txt"
"$work/dconf-probe" latency $(((changes + 4) / 5)) 16 "$out/dconf-samples-16.txt" | tee "$out/dconf-latency-16.txt"
