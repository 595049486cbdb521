#!/usr/bin/env bash
# Installs the system packages the build and tests need, on a fresh Debian machine as root.
# Sourced or run by the README's commands; installs only what is missing, so a second run
# costs a few dpkg queries. Swift itself must already be on PATH (it is not a Debian package).
#
#   bash Tests/Scripts/install-dependencies.sh              # what the build and tests need
#   bash Tests/Scripts/install-dependencies.sh PACKAGE...   # just these (browser-tests.sh's)
set -euo pipefail

# strace injects system-call faults into the domain-file and watcher tests; util-linux provides
# flock(1), the other process that holds a domain lock in the lock-timeout test; bindfs mounts a
# FUSE file system, where the watcher must poll because inotify misses changes beneath it;
# systemd provides the systemd-journald and journalctl that Tests/Scripts/with-journald.sh
# starts and the JournaldLogging tests read back with (util-linux's unshare isolates it); man-db
# (with groff-base, which it depends on) renders the installed defaults(1) page in install-test.sh;
# etcd-server, etcd-client and openssl run the etcd clusters (plain and TLS) of the EtcdGateway tests;
# python3-venv gives python-tests.sh the virtual environment it installs the Python package into.
packages=(pkg-config libsystemd-dev python3 python3-venv strace util-linux bindfs systemd procps man-db etcd-server etcd-client openssl)
(($#)) && packages=("$@")

if ! command -v swift >/dev/null 2>&1; then
    echo "error: swift is not on PATH; install a Swift 6.3 or newer toolchain first" >&2
    exit 1
fi

missing=()
for package in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done

if ((${#missing[@]})); then
    if [[ $(id -u) -ne 0 ]]; then
        echo "error: missing ${missing[*]}; run as root or install them first" >&2
        exit 1
    fi
    echo "installing: ${missing[*]}"
    # Another process may hold the dpkg lock (an unattended upgrade); wait for it rather
    # than failing.
    export DEBIAN_FRONTEND=noninteractive
    apt-get -o DPkg::Lock::Timeout=600 update -q
    apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "${missing[@]}"
fi

python3 -c 'import plistlib' || { echo "error: python3 has no plistlib" >&2; exit 1; }
