#!/usr/bin/env bash
# Runs a command with a real systemd-journald and a real `systemd --user` manager of its own,
# for the example-service test:
#
#   bash Tests/Scripts/with-systemd-user.sh bash Tests/Scripts/service-test.sh
#
# Neither needs systemd as PID 1. The command runs in a private mount namespace with fresh
# tmpfs file systems on /run/systemd, /run/log and /run/user, so the sockets, the journal and
# /run/systemd/system (which makes sd_booted() true, and which `systemd --user` needs) exist
# only for it, and a journald or user manager elsewhere on the machine is neither used nor
# disturbed. HOME is a fresh temporary directory, so the user manager loads units from
# $HOME/.config/systemd/user and services keep preferences in $HOME/.config/preferences:
# the user's real units and settings are never touched. Both daemons are stopped by the PIDs
# started here, never by name, and the temporary home is removed.
#
# Needs root (for the mount namespace), unshare(1), /lib/systemd/systemd-journald and
# /lib/systemd/systemd (the systemd package). Exports HOME and XDG_RUNTIME_DIR for the command.
set -euo pipefail

if [[ "${1:-}" != "--in-namespace" ]]; then
    exec unshare --mount --propagation private bash "${BASH_SOURCE[0]}" --in-namespace "$@"
fi
shift

for directory in /run/systemd /run/log /run/user; do
    mkdir -p "$directory"
    mount -t tmpfs -o mode=0755 tmpfs "$directory"
done
mkdir -p /run/systemd/journal /run/systemd/system

export XDG_RUNTIME_DIR=/run/user/$(id -u)
mkdir -m 700 "$XDG_RUNTIME_DIR"
HOME=$(mktemp -d /tmp/swift-preferences-service-home.XXXXXX)
export HOME
# Only the temporary home decides where units and preferences live.
unset XDG_CONFIG_HOME XDG_DATA_HOME XDG_STATE_HOME PREFERENCES_HOME PREFERENCES_SYSTEM_DIR \
    DBUS_SESSION_BUS_ADDRESS NOTIFY_SOCKET

journald=""
manager=""
stop_all() {
    # Stop by the PIDs started here, never by name: the manager first (it stops its services),
    # then journald.
    if [[ -n $manager ]]; then kill -TERM "$manager" 2>/dev/null || true; wait "$manager" 2>/dev/null || true; fi
    if [[ -n $journald ]]; then kill -TERM "$journald" 2>/dev/null || true; wait "$journald" 2>/dev/null || true; fi
    rm -rf "$HOME"
}
trap stop_all EXIT

setsid /lib/systemd/systemd-journald </dev/null >/dev/null 2>&1 &
journald=$!
# shellcheck source=journald-socket.sh
source "$(dirname "${BASH_SOURCE[0]}")/journald-socket.sh"
wait_for_journal_socket "$journald"

setsid /lib/systemd/systemd --user --log-target=journal </dev/null >"$HOME/manager.log" 2>&1 &
manager=$!
for _ in $(seq 100); do
    state=$(systemctl --user is-system-running 2>/dev/null || true)
    [[ $state == running || $state == degraded ]] && break
    kill -0 "$manager" 2>/dev/null || { echo "error: systemd --user exited:" >&2; cat "$HOME/manager.log" >&2; exit 1; }
    sleep 0.1
done
[[ $state == running || $state == degraded ]] || {
    echo "error: systemd --user is '$state' after 10 s:" >&2; cat "$HOME/manager.log" >&2; exit 1
}

status=0
"$@" || status=$?
exit "$status"
